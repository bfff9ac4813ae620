"""Feedback is the first difference between the student's outcome and the reference's, shown
compactly: where, then yours against the reference's; a hint names a cause only when one known
mistake does exactly the same."""
from __future__ import annotations

from course.contract.exercise import Outcome
from course.grading.classroom.feedback import feedback_html
from course.grading.judging.notebook_context import NotebookContext
from course.grading.judging.oracle import (
    MISSING,
    Rule,
    canonical,
    difference,
    first_difference,
    shown,
)
from course.grading.judging.registry import shipped
from course.grading.marks.mark import Mark, run_exercise
from course.grading.marks.report import results_json
from course.messages import assistant, tool_result, tool_use, user

Q = user("When was she born?")
ASK = assistant("Let me look.", tool_use("t1", "search", {"query": "Aurora Run"}))
RESULT = user(tool_result("t1", "page 1"))
ANSWER = assistant("1974")
WANT = [Q, ASK, RESULT, ANSWER]


def test_equal_values_have_no_difference_and_one_content_is_written_one_way():
    assert difference(canonical(list(WANT)), canonical(WANT)) is None
    as_string = [{"role": "user", "content": "When was she born?"}, *WANT[1:]]
    assert difference(canonical(as_string), canonical(WANT)) is None  # a string is one text block
    dumped = [Q, {"role": "assistant",
                  "content": [{"type": "text", "text": "Let me look.", "citations": None},
                                                   {**tool_use(
                                                       "t1", "search", {"query": "Aurora Run"})}]},
              *WANT[2:]]
    # an SDK dump's None fields mean nothing
    assert difference(canonical(dumped), canonical(WANT)) is None


def test_the_first_difference_is_named_by_its_place_with_both_values():
    wrong_id = [Q, ASK, user(tool_result("t9", "page 1")), ANSWER]
    assert difference(canonical(wrong_id), canonical(WANT)) == (
        "[2].content[0].tool_use_id",
        "t9",
        "t1",
    )
    flagged = [Q, ASK, user(tool_result("t1", "page 1", is_error=True)), ANSWER]
    assert difference(canonical(flagged), canonical(WANT)) == (
        "[2].content[0].is_error",
        True,
        MISSING,
    )


def test_a_message_more_or_less_is_shown_at_the_first_place_the_lists_part():
    assert difference(canonical(WANT + [ANSWER]), canonical(WANT))[0] == "[4]"
    path, mine, theirs = difference(canonical([Q, RESULT, ANSWER]), canonical(WANT))
    assert path == "[1].role" and (mine, theirs) == ("user", "assistant")


def test_numbers_agree_within_a_sum_taken_in_another_order_but_true_is_not_one():
    assert difference(0.1 + 0.2 + 0.3, 0.3 + 0.2 + 0.1) is None
    assert difference(True, 1) == ("", True, 1)


def test_values_are_shown_in_python_syntax_floats_with_ten_digits_long_ones_cut():
    # money: no exponent
    assert shown(["P2", 1]) == "['P2', 1]" and shown(5.0900000000000004e-05) == "0.0000509"
    assert shown({"is_error": True, "content": None}) == "{'is_error': True, 'content': None}"
    assert len(shown("x" * 500)) == 160 and shown("x" * 500).endswith("…")


def test_a_rejected_request_shows_the_api_s_own_message():
    rule = Rule("sends", list, ("requests",))
    mine = Outcome(requests=[{"messages": [Q]}, {"messages": [Q, ANSWER]}], statuses=[200, 400],
                   replies=[{}, {"error": {"message": "messages: the last message must be from the "
                                                      "user"}}])
    theirs = Outcome(requests=[{"messages": [Q]}, {"messages": [Q, ASK]}], statuses=[200, 200])
    why = first_difference(rule, mine, theirs)
    assert why.startswith("request 2, messages[1].content[0].text: yours") and why.count(
        "the API answered 400") == 1


def test_feedback_on_a_checker_shows_yours_against_the_reference():
    registry = shipped()
    exercise = registry.exercise("first_violation")
    results = run_exercise(exercise, NotebookContext(lambda messages: ["P1", 0], registry))
    reasons = " ".join(r.reason for r in results if not r.passed)
    assert "yours ['P1', 0]" in reasons and "the reference's" in reasons and all(
        not r.hint for r in results)


def test_the_feedback_page_never_shows_a_hidden_check_before_results_json_would():
    """A hidden check (--tests) is after_published in results.json: the page counts it, and shows
    neither its name, its case nor the reference's answer (it showed all three, unmarked)."""
    secret = ("with a model that 1) asks for search x3; max_turns=7: the return value: yours 1, "
              "the reference's 1974")
    marks = [Mark("ask: sends one request", 1, 1),
             Mark("ask: the secret rule", 0, 2, secret, "the secret hint", hidden=True)]
    page = feedback_html("alice",
                         {"fixture": results_json(marks, 1.0, "fixture: 1/3 points (fixture)")})
    assert "secret rule" not in page and "1974" not in page and "secret hint" not in page
    assert "fixture: 1/1 points" in page and ("1 hidden checks (2 points) are shown once grades "
                                              "are published") in page
    assert "sends one request" in page
