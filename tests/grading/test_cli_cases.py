"""Exercise 14's runs start the Claude Code CLI (seconds each), so its cases are chosen to cost little: a student's run
whose limits were given wrong (or not at all) ends by itself within a few requests, never at the call limit, and a
case two rules share runs once, for the student and for the reference. Checked without the CLI (milliseconds)."""
from __future__ import annotations

import pytest

from course.client import MODEL, local_client
from course.contract.exercise import Outcome
from course.grading.judging import oracle, registry
from course.grading.marks.mark import run_exercise
from course.loop import Agent, Limits

CLI_RUNS = ["gated_run", "limited_run"]
CALLS = 4  # Aurora Run: two searches and the answer (the CLI adds its ToolSearch turn: 4 requests)


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_every_case_of_a_cli_run_ends_by_itself_when_nothing_limits_it(grade_id):
    for rule in registry.shipped().exercise(grade_id).rules:
        for case in rule.all_cases():
            scenario = case.scenario
            limits = Limits(max_turns=CALLS)  # a guard: a model that never stops ends at the cap, not in success
            run = Agent(local_client(scenario.api()), MODEL, scenario.tools(), limits).run(scenario.english_prompt)
            assert (run.subtype, run.calls <= CALLS) == ("success", True), (rule.name, scenario.name, run.calls)


class Counting:
    """A student's function that does what the reference does (every rule passes, so every case runs), counting
    each call by its inputs."""

    def __init__(self):
        self.calls: list[str] = []

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        self.calls.append(oracle.inputs(oracle.Case("", args, kwargs, scenario)))
        return Outcome(value=1)


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_each_distinct_case_of_a_cli_run_runs_once_for_the_student_and_for_the_reference(grade_id, monkeypatch):
    exercise = registry.shipped().exercise(grade_id)
    referenced: list[str] = []
    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call", lambda fn, case, *rest, **saved: referenced.append(
        oracle.inputs(case)) or Outcome(value=1))
    student = Counting()
    marks = run_exercise(exercise, student)
    distinct = {oracle.inputs(case) for rule in exercise.rules for case in rule.all_cases()}
    assert all(m.passed for m in marks) and sorted(student.calls) == sorted(referenced) == sorted(distinct)
