"""Exercise 14's runs of the Claude Code CLI are independent processes, seconds each: the grader
runs an exercise's first case alone, then the others all at once, each in a worker of its own, so
the exercise costs two call limits at most, however slow the student's function is on every call
(before: one call after another, so a function slow on every call but finishing spent up to the
exercise's whole 120 s budget). The grade is the one a run one after another gets: a case after the
first one stopped is not run. Checked with a 1 s call limit and functions that return at once on
the first case and never on the others (no CLI is started)."""
from __future__ import annotations

import threading
from pathlib import Path

import nbformat
import pytest

from course.grading.classroom import worker_context
from course.grading.classroom.batch import grade_batch
from course.grading.classroom.budget import Budget
from course.grading.judging import oracle, registry
from course.i18n import language
from tests.grading.test_cli_cases import CLI_RUNS, reference_in

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "solutions" / "14_the_agent_sdk.ipynb"
JAPANESE = ROOT / "solutions" / "ja" / "14_the_agent_sdk.ipynb"
# the first case of each: returns at once (None); every other: never returns
FIRST_ONLY = {"gated_run": "async def gated_run(prompt, options, deny):\n"
                           "    if deny != ['Bash', 'mcp__course__search(Aurora*)']:\n"
                           "        await asyncio.sleep(1e9)\n",
              "limited_run": "async def limited_run(prompt, options, max_turns, max_budget_usd):\n"
                             "    if (max_turns, max_budget_usd) != (1, None):\n"
                             "        await asyncio.sleep(1e9)\n"}
ADVICE = ("; the reference's run of this case took 2.5 s; if the machine was busy, grading again "
          "with a longer call limit gives a right function these points")


class InFlight:
    """WorkerContext.call counted while it runs: how many calls were under way at once, at most."""

    def __init__(self, call):
        self.now, self.most, lock = 0, 0, threading.Lock()

        self.languages: set[str] = set()  # the language each call was made in

        def counted(ctx, *args, **kwargs):
            with lock:
                self.now += 1
                self.most = max(self.most, self.now)
                self.languages.add(language())
            try:
                return call(ctx, *args, **kwargs)
            finally:
                with lock:
                    self.now -= 1

        self.call = counted


def grade_first_only(tmp_path_factory, notebook: Path, slots: int | None):
    """`notebook` with gated_run and limited_run as FIRST_ONLY, graded by the batch with a 1 s call
    limit (the references' runs: 2.5 s, without the CLI), one exercise at a time; with the batch's
    slots, or `slots` (a class's calls beyond them wait): (its report, the calls counted)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        reference_in(monkeypatch, 2.5)
        for grade_id in CLI_RUNS:
            monkeypatch.setattr(registry.shipped().exercise(grade_id), "call_timeout", 1.0)
        if slots:
            monkeypatch.setattr(worker_context, "SLOTS", threading.BoundedSemaphore(slots))
        in_flight = InFlight(worker_context.WorkerContext.call)
        monkeypatch.setattr(worker_context.WorkerContext, "call", in_flight.call)
        nb = nbformat.read(notebook, as_version=4)
        for cell in nb.cells:
            name = cell.metadata.get("nbgrader", {}).get("grade_id")
            if name in CLI_RUNS:
                cell.source = FIRST_ONLY[name]
        nb.cells[1].source = "import asyncio\n" + nb.cells[1].source
        folder = tmp_path_factory.mktemp("at-once")
        nbformat.write(nb, folder / notebook.name)
        report, = grade_batch([folder / notebook.name], folder / "out", jobs=1,
                              budget=Budget(call=1.0), log=lambda line: None)
    return report, in_flight


@pytest.fixture(scope="module", params=[None, 2], ids=["slots", "two-slots"])
def graded(request, tmp_path_factory):
    return (*grade_first_only(tmp_path_factory, NOTEBOOK, request.param), request.param)


def test_a_cli_exercises_cases_after_the_first_run_at_once_each_in_a_worker_of_its_own(graded):
    """jobs=1: the calls under way at once are one exercise's: limited_run's 5 after the first, or
    as many as the slots let run."""
    _, in_flight, slots = graded
    most = max(len({oracle.inputs(c) for r in registry.shipped().exercise(g).rules
                    for c in r.all_cases()}) for g in CLI_RUNS)
    assert most == 6 and in_flight.most == (slots or most - 1)


def outputs(report: dict, grade_id: str) -> list[str]:
    return [t["output"] for t in report["tests"] if t["name"].startswith(f"{grade_id}: ")]


def test_as_one_after_another_the_second_case_is_stopped_and_the_later_ones_are_not_run(graded):
    """Every case after the first ran, or waited for a slot, at once, and every one of them hung;
    the grade is the one a run one after another gets, whatever finished first: the second case
    is stopped (its reason gives the reference's time and says a busy machine can be graded again)
    and every later case is not run, naming it."""
    report, _, _ = graded
    second = "Aurora Run on the Claude Code CLI, deny=['mcp__course__search(*1974*)']"
    _, stopped, later = outputs(report, "gated_run")
    assert stopped == (f"with {second}: your function was stopped: timed out after 1 s (an endless "
                       f"loop? no turn cap? waiting for input?){ADVICE}"), stopped
    assert later.startswith(f"not run: your function was stopped on an earlier case ({second}: "
                            "timed out after 1 s"), later
    # limited_run's first rule fails on its first case (None is not the reference's value), before
    # the second; its last rule shares the first's cases
    second = "Aurora Run on the Claude Code CLI, max_turns=2, max_budget_usd=None"
    first, later, last = outputs(report, "limited_run")
    assert first == last and first.startswith("with Aurora Run on the Claude Code CLI, "
                                              "max_turns=1, max_budget_usd=None: "), first
    assert later.startswith(f"not run: your function was stopped on an earlier case ({second}: "
                            "timed out after 1 s"), later


def test_a_japanese_notebooks_cases_run_at_once_are_run_in_japanese(tmp_path_factory):
    """The cases after the first run on a pool's threads, which do not inherit the submission's
    language: each must speak it, or its tools answer in English and a Japanese solution's run
    differs from the Japanese reference's (a right function marked down)."""
    _, in_flight = grade_first_only(tmp_path_factory, JAPANESE, None)
    assert in_flight.most > 1 and in_flight.languages == {"ja"}, in_flight.languages
