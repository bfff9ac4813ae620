"""Exercise 14's runs of the Claude Code CLI are independent processes, seconds each: the grader
runs an exercise's cases all at once, each in a worker of its own, so the exercise costs one call
limit at most, however slow the student's function is on every call (before: one call after
another, so a function slow on every call but finishing spent up to the exercise's whole 120 s
budget). Checked with a 1 s call limit and functions that never return (no CLI is started)."""
from __future__ import annotations

import threading
from pathlib import Path

import nbformat
import pytest

from course.grading.classroom import worker_context
from course.grading.classroom.batch import grade_batch
from course.grading.classroom.budget import Budget
from course.grading.judging import oracle, registry
from tests.grading.test_cli_cases import CLI_RUNS, reference_in

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "solutions" / "14_the_agent_sdk.ipynb"
HANGS = "async def {name}(*args):\n    await asyncio.sleep(1e9)\n"


class InFlight:
    """WorkerContext.call counted while it runs: how many calls were under way at once, at most."""

    def __init__(self, call):
        self.now, self.most, lock = 0, 0, threading.Lock()

        def counted(ctx, *args, **kwargs):
            with lock:
                self.now += 1
                self.most = max(self.most, self.now)
            try:
                return call(ctx, *args, **kwargs)
            finally:
                with lock:
                    self.now -= 1

        self.call = counted


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Lesson 14's solution notebook with gated_run and limited_run never returning, graded by the
    batch with a 1 s call limit (the references' runs: 2.5 s, without the CLI)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        reference_in(monkeypatch, 2.5)
        for grade_id in CLI_RUNS:
            monkeypatch.setattr(registry.shipped().exercise(grade_id), "call_timeout", 1.0)
        in_flight = InFlight(worker_context.WorkerContext.call)
        monkeypatch.setattr(worker_context.WorkerContext, "call", in_flight.call)
        nb = nbformat.read(NOTEBOOK, as_version=4)
        for cell in nb.cells:
            name = cell.metadata.get("nbgrader", {}).get("grade_id")
            if name in CLI_RUNS:
                cell.source = HANGS.format(name=name)
        nb.cells[1].source = "import asyncio\n" + nb.cells[1].source
        folder = tmp_path_factory.mktemp("at-once")
        nbformat.write(nb, folder / NOTEBOOK.name)
        report, = grade_batch([folder / NOTEBOOK.name], folder / "out", jobs=1,
                              budget=Budget(call=1.0), log=lambda line: None)
    return report, in_flight


def test_every_case_of_a_cli_exercise_runs_at_once_in_a_worker_of_its_own(graded):
    """jobs=1: one exercise at a time, so the calls under way at once are one exercise's cases."""
    _, in_flight = graded
    most = max(len({oracle.inputs(c) for r in registry.shipped().exercise(g).rules
                    for c in r.all_cases()}) for g in CLI_RUNS)
    assert most == 6 and in_flight.most == most


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_every_rule_of_a_cli_exercise_says_its_own_run_was_stopped_and_what_the_reference_took(
        graded, grade_id):
    """All at once, every case ran: no rule is left "not run" behind an earlier stopped call, and
    each says its run was stopped at the limit beside the reference's time for that run."""
    report, _ = graded
    outputs = [t["output"] for t in report["tests"] if t["name"].startswith(f"{grade_id}: ")]
    assert len(outputs) == 3 and all(
        o.startswith("with Aurora Run on the Claude Code CLI, ")
        and o.endswith(": your function was stopped: timed out after 1 s (an endless loop? no turn "
                       "cap? waiting for input?); the reference's run of this case took 2.5 s; if "
                       "the machine was busy, grading again with a longer call limit gives a right "
                       "function these points")
        for o in outputs), outputs
