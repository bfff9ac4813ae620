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


@pytest.fixture(scope="module", params=[None, 2], ids=["slots", "two-slots"])
def graded(request, tmp_path_factory):
    """Lesson 14's solution notebook with gated_run and limited_run never returning, graded by the
    batch with a 1 s call limit (the references' runs: 2.5 s, without the CLI), one exercise at a
    time; with the batch's slots, or 2 (a class's calls beyond them wait)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        reference_in(monkeypatch, 2.5)
        for grade_id in CLI_RUNS:
            monkeypatch.setattr(registry.shipped().exercise(grade_id), "call_timeout", 1.0)
        if request.param:
            monkeypatch.setattr(worker_context, "SLOTS", threading.BoundedSemaphore(request.param))
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
    return report, in_flight, request.param


def test_a_cli_exercises_cases_run_at_once_each_in_a_worker_of_its_own_up_to_the_slots(graded):
    """jobs=1: the calls under way at once are one exercise's: all 6 of limited_run's, or as many
    as the slots let run."""
    _, in_flight, slots = graded
    most = max(len({oracle.inputs(c) for r in registry.shipped().exercise(g).rules
                    for c in r.all_cases()}) for g in CLI_RUNS)
    assert most == 6 and in_flight.most == (slots or most)


@pytest.mark.parametrize("grade_id", CLI_RUNS)
def test_as_one_after_another_the_first_case_is_stopped_and_the_later_ones_are_not_run(
        graded, grade_id):
    """Every case ran, or waited for a slot, at once; the grade is the one a run one after another
    gets, whatever finished first: the first case says its run was stopped at the limit beside the
    reference's time (and that a busy machine can be graded again), every later case is not run."""
    report, _, _ = graded
    first, *others = [t["output"] for t in report["tests"] if t["name"].startswith(f"{grade_id}: ")]
    assert first.startswith("with Aurora Run on the Claude Code CLI, ") and first.endswith(
        ": your function was stopped: timed out after 1 s (an endless loop? no turn cap? waiting "
        "for input?); the reference's run of this case took 2.5 s; if the machine was busy, "
        "grading again with a longer call limit gives a right function these points"), first
    # limited_run's last rule shares the first's case
    assert others and all(o == first or o.startswith("not run: your function was stopped on an "
                                                     "earlier case (Aurora Run ") for o in others)
    assert any(o != first for o in others), others
