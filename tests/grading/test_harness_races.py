"""What the genuine Claude Code CLI reports can depend on timing, and the grader must not mark that
down. After a budget stop, whether the CLI had already run the response's ToolSearch when it checked
the cost decides its ResultMessage's num_turns and stop_reason (1 and None, or 2 and "tool_use"); a
stream with 10 ms between events (a loaded machine) flips them. Either way the budget rule judges
the reference right, and on a slowed stream every rule of exercise 14's two runs does too, so a CLI
run is graded once. Neither test needs the race to be reached, nor either of its ends: a loaded
machine reaches it on the fast stream as well."""
from __future__ import annotations

import dataclasses

import pytest

from course.grading.judging import reference, registry
from course.grading.judging.checks import l14_the_agent_sdk as l14
from course.grading.judging.oracle import reference_outcome, trusted_call, verdict
from course.scenarios.base import Scenario

pytestmark = pytest.mark.slow


def runs(monkeypatch, function: str, rule, pace: float) -> list:
    """The reference's outcome on each of `rule`'s cases, its API streaming with `pace` seconds
    between events."""
    made = Scenario.api
    monkeypatch.setattr(Scenario, "api", lambda self, **options: made(self, pace=pace, **options))
    fn = reference.function(l14.NOTEBOOK, function)
    try:
        return [trusted_call(fn, case, l14.CLI_SECONDS) for case in rule.all_cases()]
    finally:
        monkeypatch.setattr(Scenario, "api", made)


def test_a_budget_stop_is_judged_alike_whichever_way_the_race_went():
    """Both ends of the race are written into the reference's own outcome (the grader's, saved once
    per machine): nothing here depends on which end a run reached, so no machine's speed can fail
    it."""
    exercise = registry.shipped().exercise("limited_run")
    rule = exercise.rules[1]  # max_budget_usd stops the run
    for index, case in enumerate(rule.all_cases()):
        theirs = reference_outcome(exercise, rule, index)
        assert theirs.value["subtype"] == "error_max_budget_usd"
        for turns, stop_reason in ((1, None), (2, "tool_use")):  # the two ends of the race
            mine = dataclasses.replace(theirs, value={**theirs.value, "num_turns": turns,
                                                      "stop_reason": stop_reason})
            assert verdict(rule, mine, theirs, case) == "", verdict(rule, mine, theirs, case)


@pytest.mark.parametrize("grade_id", ["gated_run", "limited_run"])
def test_every_rule_of_a_cli_run_judges_the_reference_right_on_a_slow_stream(monkeypatch, grade_id):
    exercise = registry.shipped().exercise(grade_id)
    for rule in exercise.rules:
        fast = [reference_outcome(exercise, rule, index) for index in range(len(rule.all_cases()))]
        slow = runs(monkeypatch, grade_id, rule, 0.03)
        for case, mine, theirs in zip(rule.all_cases(), slow, fast, strict=True):
            assert verdict(rule, mine, theirs, case) == "", (rule.name, verdict(
                rule, mine, theirs, case))
