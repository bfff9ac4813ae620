"""Mutation testing of the checks: every mutant of every reference solution must lose marks, unless it is listed
in equivalent_mutants.py with the reason it behaves exactly as the reference on everything the text asks.

Each mutant is graded as a student's function would be, in-process, stopping at its first failed check. The
score, killed / (mutants - equivalent ones), is printed and must be at least 98%.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from course.grading.judging import reference, registry
from course.grading.marks.mark import run_check
from course.grading.judging.notebook_context import NotebookContext

from equivalent_mutants import EQUIVALENT  # tests/grading/, on sys.path as pytest imports this file
from mutation import mutants

REGISTRY = registry.shipped()
EXERCISES = [e for e in REGISTRY.exercises.values() if e.rules]
MUTANT_TIMEOUT = 2.0  # seconds per call: the references take milliseconds (those that start the CLI, more: their
# exercise says), a mutant that loops is stopped
SCORE = 0.98


def solution_cell(exercise):
    """(the cells the grader runs before the solution cell, the solution cell's source)."""
    cells = reference.cells(exercise.notebook)
    at = next(i for i, c in enumerate(cells) if c.metadata.get("nbgrader", {}).get("grade_id") == exercise.grade_id)
    return [c.source for c in cells[:at]], cells[at].source


def survives(grade_id: str, source: str) -> bool:
    """Whether the mutated solution cell keeps full marks (it stops at the first check it fails)."""
    exercise = REGISTRY.exercise(grade_id)
    before, _ = solution_cell(exercise)
    try:
        namespace = reference.run_cells(before + [source], exercise.notebook)
    except Exception:  # noqa: BLE001 - a mutant that breaks the cell loses every mark
        return False
    context = NotebookContext(namespace[exercise.function], REGISTRY, max(MUTANT_TIMEOUT, exercise.call_timeout))
    return all(run_check(exercise, check, context).passed for check in exercise.checks)


def judged() -> list[tuple[str, str, bool]]:
    """(grade_id, mutant, survived) for every mutant of every exercise, two processes at a time."""
    jobs = [(e.grade_id, m) for e in EXERCISES for m in mutants(solution_cell(e)[1])]
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        alive = list(pool.map(survives, [g for g, _ in jobs], [m.source for _, m in jobs], chunksize=4))
    return [(g, m.name, a) for (g, m), a in zip(jobs, alive, strict=True)]


@pytest.fixture(scope="module")
def results():
    return judged()


def test_every_mutant_of_the_references_loses_marks_but_the_listed_equivalent_ones(results, record_property):
    survivors = {(g, name) for g, name, alive in results if alive}
    listed = {k for k in EQUIVALENT if k[0] in {e.grade_id for e in EXERCISES}}
    counted = len(results) - len(listed & survivors)
    killed = sum(not alive for _, _, alive in results)
    record_property("summary", f"mutation score: {killed} of {counted} mutants killed ({killed / counted:.1%}); "
                               f"{len(listed & survivors)} listed as equivalent")  # printed at the end (conftest.py)
    unlisted = sorted(survivors - listed)
    assert killed / counted >= SCORE, f"mutants that keep full marks: {unlisted}"
    killed_listed = sorted(listed - survivors)
    assert killed_listed == [], "listed as equivalent but killed: drop them from equivalent_mutants.py"


def test_the_mutation_operators_reach_every_solution_block():
    for e in EXERCISES:
        assert mutants(solution_cell(e)[1]), f"no mutant of {e.grade_id}"
