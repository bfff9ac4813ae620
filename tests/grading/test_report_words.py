"""Reports read right: a space after each PASS/FAIL badge in HTML (a screen reader and a copy read "FAIL every
request ...", not "FAILevery request"), values in Python's syntax."""
from __future__ import annotations

import re
from html import unescape

from course.grading import registry
from course.grading.mark import run_exercise
from course.grading.notebook_context import NotebookContext
from course.grading.report import html_report

REGISTRY = registry.shipped()


def test_each_badge_is_followed_by_a_space_and_values_are_python():
    exercise = REGISTRY.exercise("first_violation")
    marks = run_exercise(exercise, NotebookContext(lambda messages: None, REGISTRY))
    html = html_report(exercise, marks)
    badges = re.findall(r">(PASS|FAIL)</span>(.)", html)
    assert badges and all(after == " " for _, after in badges), badges
    assert "yours None, the reference's ['P1', 0]" in unescape(html)
