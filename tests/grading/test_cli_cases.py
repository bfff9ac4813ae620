"""Exercise 14's runs start the Claude Code CLI (seconds each), so its cases are chosen to cost
little: a student's run whose limits were given wrong (or not at all) ends by itself within a few
requests, never at the call limit, and a case two rules share runs once, for the student and for the
reference. Checked without the CLI (milliseconds)."""
from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from course.client import MODEL, local_client
from course.contract.exercise import Outcome
from course.grading.judging import oracle, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise
from course.loop import Agent, Limits

ROOT = Path(__file__).resolve().parents[2]
CLI_RUNS = ["gated_run", "limited_run"]
CALLS = 4  # Aurora Run: two searches and the answer (the CLI adds its ToolSearch turn: 4 requests)


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_every_case_of_a_cli_run_ends_by_itself_when_nothing_limits_it(grade_id):
    for rule in registry.shipped().exercise(grade_id).rules:
        for case in rule.all_cases():
            scenario = case.scenario
            # a guard: a model that never stops ends at the cap, not in success
            limits = Limits(max_turns=CALLS)
            run = Agent(local_client(scenario.api()), MODEL, scenario.tools(), limits).run(
                scenario.english_prompt)
            assert (run.subtype, run.calls <= CALLS) == ("success", True), (
                rule.name,
                scenario.name,
                run.calls,
            )


class Counting:
    """A student's function that does what the reference does (every rule passes, so every case
    runs), counting each call by its inputs."""

    def __init__(self):
        self.calls: list[str] = []

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        self.calls.append(oracle.inputs(oracle.Case("", args, kwargs, scenario)))
        return Outcome(value=1)


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_each_distinct_case_of_a_cli_run_runs_once_for_the_student_and_for_the_reference(
    grade_id, monkeypatch):
    exercise = registry.shipped().exercise(grade_id)
    referenced: list[str] = []
    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call", lambda fn, case, *rest, **saved: referenced.append(
        oracle.inputs(case)) or Outcome(value=1))
    student = Counting()
    marks = run_exercise(exercise, student)
    distinct = {oracle.inputs(case) for rule in exercise.rules for case in rule.all_cases()}
    assert all(m.passed for m in marks) and sorted(student.calls) == sorted(referenced) == sorted(
        distinct)


class Stopped(Counting):
    """A student's function that never returns (a can_use_tool that hangs, a `while True`): every
    call is stopped at its time limit, as the grader's contexts stop it."""

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        super().call(*args, scenario=scenario, **kwargs)
        return Outcome(error="timed out after 15 s (an endless loop? no turn cap? waiting for "
                             "input?)",
                       timed_out=True, seconds=15.0)


def reference_in(monkeypatch, seconds: float) -> None:
    """Every reference and known-mistake call returns 1 in `seconds`, without the CLI (the cached
    ones forgotten)."""
    from course.grading.judging import mistakes

    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(mistakes, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call", lambda *args,
                        **kwargs: Outcome(value=1, seconds=seconds))


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_a_cli_run_stopped_at_its_time_limit_is_the_exercises_only_call_and_every_other_rule_says_why(  # noqa: E501
    grade_id, monkeypatch
):
    """Each case costs the call limit when the function hangs: after the first, no other case runs
    (before: one call per rule, 45 s each), every other rule fails saying which call was stopped and
    that a busy machine can be graded again, and no hint is named (a case not run proves
    nothing)."""
    reference_in(monkeypatch, 2.5)
    student = Stopped()
    first, *others = run_exercise(registry.shipped().exercise(grade_id), student)
    assert len(student.calls) == 1
    assert first.reason.endswith(": your function was stopped: timed out after 15 s (an endless "
                                 "loop? no turn cap? waiting for input?); the reference's run of "
                                 "this case took 2.5 s; if the machine was busy, grading again "
                                 "with a longer call limit gives a right function these points"), (
        first.reason)
    # limited_run's last rule shares the first's case
    skipped = [m for m in others if m.reason != first.reason]
    assert skipped and all(
        m.reason.startswith("not run: your function was stopped on an earlier case (Aurora Run ")
        and "grading again with a longer call limit" in m.reason
        for m in skipped
    )
    assert not any(m.score or m.hint for m in [first, *others])


def test_a_call_stopped_in_an_exercise_without_a_harness_does_not_stop_its_other_rules(monkeypatch):
    """A loop with no turn cap times out on the cases whose model never stops and passes the others:
    every rule of an exercise whose calls are quick runs its own cases (one point per sentence)."""
    exercise = registry.shipped().exercise("agent_loop")
    reference_in(monkeypatch, 0.1)
    student = Stopped()
    run_exercise(exercise, student)
    assert len(set(student.calls)) == len({oracle.inputs(rule.all_cases()[0])
                                           for rule in exercise.rules}) > 1


def test_in_the_notebook_too_a_run_that_never_returns_is_stopped_once(monkeypatch):
    """check() in the notebook stops the call in its thread at the limit, and says so: the other
    rules do not wait."""
    reference_in(monkeypatch, 2.5)
    calls = []

    async def gated_run(prompt, options, deny):
        calls.append(deny)
        await asyncio.sleep(1e9)

    first, *others = run_exercise(registry.shipped().exercise("gated_run"),
                                  NotebookContext(gated_run, registry.shipped(), timeout=0.5))
    assert len(calls) == 1 and "your function was stopped: timed out after 0.5 s" in first.reason, (
        first.reason
    )
    assert all(m.reason.startswith("not run: ") for m in others)


def test_a_reference_outcome_already_made_is_read_while_the_warm_up_makes_another(monkeypatch):
    """The batch makes every reference outcome in a thread of its own (a CLI run each, seconds long)
    while checks ask for theirs: one already made is read at once (before, the check waited for the
    run under way, which held the lock: a student stopped at 15 s waited for the warm-up's last runs
    of the CLI)."""
    exercise = registry.shipped().exercise("limited_run")
    made, second, read, finished = [], threading.Event(), threading.Event(), []

    def call(fn, case, *rest, **saved) -> Outcome:
        made.append(oracle.inputs(case))
        # the warm-up's second run lasts until the check below has its outcome (or 10 s)
        if len(made) == 2:
            second.set()
            read.wait(10)
            finished.append(True)
        return Outcome(value=len(made))

    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call", call)
    warming = threading.Thread(target=oracle.warm, args=([exercise], ["en"]))
    warming.start()
    second.wait()
    first = oracle.reference_outcome(exercise, exercise.rules[0], 0)
    read_during_the_second_run = not finished
    read.set()
    warming.join()
    assert first.value == 1 and read_during_the_second_run


def test_the_fork_server_imports_the_agent_sdk_once_for_every_worker():
    """Lesson 14's first cell imports claude_agent_sdk: 6 s at a load average of 10 on 2 cores, in
    each worker of its three exercises, before the first call; the fork server imports it once and
    its workers start with it."""
    preloaded = (
        "import sys; from course.contract import child; child.preload(); print('claude_agent_sdk' "
        "in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", preloaded], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.stdout.strip() == "True", done.stderr
