"""Exact where the text is exact, free where it is free: the arguments after the call are compared
as they are (so every change made in place shows), and a value the text never names (budget_loop's
max_tokens, the words around the evaluator's line in goal_loop) is left to the student, with the
relation the rule accepts."""
from __future__ import annotations

import pytest
from variants import variant  # tests/grading/, on sys.path as pytest imports this file

from course.grading.judging import reference, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise

REGISTRY = registry.shipped()


def failed(grade_id: str, fn) -> list[str]:
    """The names of the rules `fn` fails."""
    marks = run_exercise(REGISTRY.exercise(grade_id), NotebookContext(fn, REGISTRY))
    return [m.name.split(": ", 1)[1] for m in marks if not m.passed]


def first_message_made(change):
    """count_run, right on the counts, that changes the history's first message in place with
    `change`."""
    def count_run(messages):
        counts = reference.function("solutions/04_termination.ipynb", "count_run")(messages)
        change(messages[0])
        return counts
    return count_run


CHANGES = {"a key added with None": lambda m: m.update(cache_control=None),
           "a string content made a text block, or the other way": lambda m: m.update(
               content=[{"type": "text", "text": m["content"]}] if isinstance(m["content"], str)
               else m["content"][0]["text"]),
           "is_error: False added": lambda m: m.update(is_error=False)}


@pytest.mark.parametrize("change", CHANGES)
def test_a_history_changed_in_place_in_a_way_the_canonical_form_hides_fails_unchanged(change):
    assert failed("count_run", first_message_made(CHANGES[change])) == ["the history is left "
                                                                        "unchanged"]


def test_budget_loop_with_a_max_tokens_of_its_own_gets_full_marks():
    fn = variant("solutions/07_context_growth_and_budgets.ipynb", "budget_loop",
                 ("max_tokens=1024", "max_tokens=4096"))
    assert failed("budget_loop", fn) == []


def test_goal_loop_that_wraps_the_evaluators_line_in_a_sentence_gets_full_marks():
    fn = variant("solutions/12_three_loops.ipynb", "goal_loop", ('"content": verdict}',
                 '"content": f"The evaluator says: {verdict}. Keep going."}'))
    assert failed("goal_loop", fn) == []


def test_goal_loop_that_sends_only_the_evaluators_reason_fails_the_not_yet_rule():
    fn = variant("solutions/12_three_loops.ipynb", "goal_loop", ('"content": verdict}',
                 '"content": verdict.split(": ", 1)[1]}'))
    assert any(name.startswith("not yet:") for name in failed("goal_loop", fn))
