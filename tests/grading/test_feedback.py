"""Feedback names a cause only when the difference shows it: message lists compared one dimension at a time,
values shown as the student's function returned them."""
from __future__ import annotations

from course.grading.checks.common import ADDED, DROPPED, IDS, IS_ERROR, REORDERED, ROLE, difference, shown
from course.grading.notebook_context import NotebookContext
from course.grading.registry import shipped
from course.grading.mark import run_exercise
from course.messages import assistant, tool_result, tool_use, user

Q = user("When was she born?")
ASK = assistant("Let me look.", tool_use("t1", "search", {"query": "Aurora Run"}))
RESULT = user(tool_result("t1", "page 1"))
ANSWER = assistant("1974")
WANT = [Q, ASK, RESULT, ANSWER]


def test_equal_lists_have_no_difference():
    assert difference(list(WANT), WANT) is None


def test_an_added_message_is_named_as_added_with_its_place():
    reason, hint = difference(WANT + [ANSWER], WANT)
    assert hint == ADDED and "adds message 5 (assistant" in reason


def test_a_dropped_message_is_named_as_dropped_never_as_added():
    reason, hint = difference([Q, RESULT, ANSWER], WANT)
    assert hint == DROPPED and "lacks message 2 (assistant" in reason


def test_the_same_messages_in_another_order_are_named_as_reordered():
    assert difference([Q, RESULT, ASK, ANSWER], WANT)[1] == REORDERED


def test_one_wrong_field_is_named_only_when_it_is_the_only_difference():
    wrong_id = [Q, ASK, user(tool_result("t9", "page 1")), ANSWER]
    assert difference(wrong_id, WANT) == ("message 3: block 1 field 'tool_use_id' is 't9', expected 't1'", IDS)
    flagged = [Q, ASK, user(tool_result("t1", "page 1", is_error=True)), ANSWER]
    assert difference(flagged, WANT)[1] == IS_ERROR
    assert difference([Q, ASK, RESULT, user("1974")], WANT)[1] == ROLE
    both = [Q, ASK, user(tool_result("t9", "other page")), ANSWER]
    assert difference(both, WANT)[1] == ""  # two fields differ: no single cause


def test_an_unrelated_list_shows_the_first_difference_and_names_no_cause():
    reason, hint = difference([Q, assistant("I do not know.")], WANT)
    assert hint == "" and "first difference at message 2" in reason


def test_pairs_are_shown_as_tuples():
    assert shown(["P2", 1]) == "('P2', 1)"
    assert shown(None) == "None"


def test_feedback_on_a_checker_shows_yours_against_the_reference():
    registry = shipped()
    exercise = registry.exercise("first_violation")
    results = run_exercise(exercise, NotebookContext(lambda messages: ["P1", 0], registry))
    reasons = " ".join(r.reason for r in results if not r.passed)
    assert 'yours ["P1", 0]' in reasons and "the checker" not in reasons
