"""Reports read right: values in Python's syntax (what the student wrote: None, True, 'text'), not
JSON's."""
from __future__ import annotations

import re
from html import unescape

from course.grading.judging import registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.judging.oracle import shown, written
from course.grading.marks.mark import run_exercise
from course.grading.marks.report import html_report, text_report

REGISTRY = registry.shipped()


def test_values_in_the_reports_are_python():
    exercise = REGISTRY.exercise("first_violation")
    marks = run_exercise(exercise, NotebookContext(lambda messages: None, REGISTRY))
    for report in (text_report(exercise, marks), unescape(html_report(exercise, marks))):
        assert "yours None, the reference's ['P1', 0]" in report.replace("\n" + " " * 14, " ")
        assert "null" not in report


def plain(html: str) -> str:
    """What a screen reader or a copy reads of an HTML report: its text, tags removed."""
    return unescape(re.sub(r"<br>", "\n", re.sub(r"<(?!br>)[^>]+>", "", html)))


def test_a_badge_is_a_word_of_its_own():
    exercise = REGISTRY.exercise("first_violation")
    marks = run_exercise(exercise, NotebookContext(lambda messages: None, REGISTRY))
    read = plain(html_report(exercise, marks))
    assert "FAIL P1: the first" in read and "PASS a list that keeps" in read
    assert "FAILP1" not in read and "PASSa list" not in read


def test_money_is_written_without_an_exponent():
    assert [written(v) for v in (2.58e-05, 0.000001, 0.0025, 100.0, 1 / 3)] == [
        "0.0000258", "0.000001", "0.0025", "100.0", "0.3333333333333333"]
    assert shown(0.1 + 0.2) == "0.3" and shown(2.5800000000000002e-05) == "0.0000258"
    exercise = REGISTRY.exercise("budget_loop")
    marks = run_exercise(exercise,
                         NotebookContext(lambda *args, **kwargs: ("success", 0.0, 1), REGISTRY))
    report = text_report(exercise, marks)
    assert "max_budget_usd=0.0" in report and not re.search(r"\de-\d", report)


def test_a_count_of_one_is_singular():
    exercise = REGISTRY.exercise("summarize_then_translate")

    def one_call(client, model, text):
        return client.messages.create(model=model, max_tokens=1024,
                                      messages=[{"role": "user", "content": text}]
                                      ).content[-1].text

    report = text_report(
        exercise, run_exercise(exercise, NotebookContext(one_call, REGISTRY))
    ).replace("\n" + " " * 14, " ")
    assert "made 1 call;" in report and "1 calls" not in report


def test_each_why_and_hint_is_said_once():
    """A function that raises fails every rule the same way: the why is said at the first, the
    others point to it."""
    exercise = REGISTRY.exercise("count_run")

    def count_run(messages):
        raise KeyError("calls")

    marks = run_exercise(exercise, NotebookContext(count_run, REGISTRY))
    assert len({m.reason for m in marks}) == 1 and len(marks) > 2
    for report in (text_report(exercise, marks).replace("\n" + " " * 14, " "),
                   plain(html_report(exercise, marks))):
        assert report.count(marks[0].reason) == 1
        assert report.count("the same as for 'calls: the model calls, one per assistant message' "
                            "above") == \
            len(marks) - 1
