"""Reports read right: values in Python's syntax (what the student wrote: None, True, 'text'), not JSON's."""
from __future__ import annotations

from html import unescape

from course.grading.judging import registry
from course.grading.marks.mark import run_exercise
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.report import html_report, text_report

REGISTRY = registry.shipped()


def test_values_in_the_reports_are_python():
    exercise = REGISTRY.exercise("first_violation")
    marks = run_exercise(exercise, NotebookContext(lambda messages: None, REGISTRY))
    for report in (text_report(exercise, marks), unescape(html_report(exercise, marks))):
        assert "yours None, the reference's ['P1', 0]" in report.replace("\n" + " " * 14, " ")
        assert "null" not in report
