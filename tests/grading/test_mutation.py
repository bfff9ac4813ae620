"""Mutation testing of the checks: every mutant mutmut makes of a reference solution must lose
marks, unless it is listed in equivalent_mutants.py: as equivalent (the reason it behaves exactly as
the reference on everything the text asks), or as a gap in the cases (the sentence it breaks, and
what would catch it).

Each mutant is graded as a student's function would be, in-process, stopping at its first failed
check, each case run once whichever rules share it (as the grader does); an exercise's mutants are
made and graded in one of two processes, so that each reference outcome is computed once. The test
prints, per function, the mutants, how many lost marks and how many survive listed, and every gap;
it fails on any survivor that is not listed (naming each, with its change) and on any listed one
that no longer survives. The exercises whose calls start the Claude Code CLI (a call_timeout:
gated_run and limited_run, seconds per case) are left out; decide, the pure part of that lesson, is
in.
"""
from __future__ import annotations

import functools
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from unittest import mock

import pytest

# tests/grading/, on sys.path as pytest imports this file
from equivalent_mutants import EQUIVALENT, GAPS
from mutation import mutants

from course.grading.judging import reference, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_check

pytestmark = pytest.mark.slow  # every mutant of every reference solution graded: not make check

REGISTRY = registry.shipped()
EXERCISES = [e for e in REGISTRY.exercises.values() if e.rules and not e.call_timeout]
# seconds per call: the references take milliseconds, a mutant that loops is stopped
MUTANT_TIMEOUT = 2.0


def solution_cell(exercise):
    """(the cells the grader runs before the solution cell, the solution cell's source)."""
    cells = code_cells(exercise.notebook)
    at = next(i for i, c in enumerate(cells)
              if c.metadata.get("nbgrader", {}).get("grade_id") == exercise.grade_id)
    return [c.source for c in cells[:at]], cells[at].source


@functools.cache
def code_cells(notebook: str) -> list:
    """The grader's cells of a solution notebook, read once per process."""
    return reference.cells(notebook)


def survives(grade_id: str, source: str) -> bool:
    """Whether the mutated solution cell keeps full marks (it stops at the first check it fails)."""
    exercise = REGISTRY.exercise(grade_id)
    before, _ = solution_cell(exercise)
    try:
        namespace = reference.run_cells(before + [source], exercise.notebook)
    except Exception:  # noqa: BLE001 - a mutant that breaks the cell loses every mark
        return False
    context, seen = NotebookContext(namespace[exercise.function], REGISTRY, MUTANT_TIMEOUT), {}
    with mock.patch("course.grading.judging.mistakes.hint", return_value=""):  # marks only, no hint
        return all(run_check(exercise, check, context, seen).passed for check in exercise.checks)


def judge_exercise(grade_id: str) -> list[tuple[str, str, bool]]:
    """(grade_id, mutant name, survived) for every mutant of one exercise."""
    made = mutants(solution_cell(REGISTRY.exercise(grade_id))[1])
    return [(grade_id, m.name, survives(grade_id, m.source)) for m in made]


def judged() -> list[tuple[str, str, bool]]:
    """(grade_id, mutant name, survived) for every mutant of every exercise, two processes at a
    time, each taking a whole exercise (the longest solutions first)."""
    longest_first = sorted(EXERCISES, key=lambda e: -len(solution_cell(e)[1]))
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        ids = [e.grade_id for e in longest_first]
        done = dict(zip(ids, pool.map(judge_exercise, ids), strict=True))
    return [row for e in EXERCISES for row in done[e.grade_id]]


@pytest.fixture(scope="module")
def results():
    return judged()


def summary(results) -> str:
    """Per function: mutants, how many lost marks, how many survive listed (equivalent, gap), how
    many unlisted; then the gaps."""
    lines = ["mutation test (mutmut's operators): mutants, caught, survivors equivalent, gaps, "
             "unlisted"]
    for grade_id in [e.grade_id for e in EXERCISES] + [None]:
        mine = [(g, name) for g, name, alive in results if grade_id is None or g == grade_id]
        alive = [(g, name) for g, name,
                 survived in results if survived and (grade_id is None or g == grade_id)]
        equivalent, gaps = sum(k in EQUIVALENT for k in alive), sum(k in GAPS for k in alive)
        lines.append(f"  {grade_id or 'all'}: {len(mine)}, {len(mine) - len(alive)}, {equivalent}, "
                     f"{gaps}, {len(alive) - equivalent - gaps}")
    lines.append("gaps in the cases (equivalent_mutants.GAPS):")
    lines += [f"  {g}: {name}: {why}" for (g, name), why in GAPS.items()]
    return "\n".join(lines)


def test_every_mutant_of_the_references_loses_marks_but_the_listed_ones(results, record_property):
    record_property("summary", summary(results))  # printed at the end of the run (conftest.py)
    survivors = {(g, name) for g, name, alive in results if alive}
    listed = EQUIVALENT.keys() | GAPS.keys()
    unlisted = sorted(survivors - listed)
    assert unlisted == [], (
        "mutants that keep full marks, neither caught nor listed in equivalent_mutants.py:\n"
        + "\n".join(f"  {g}: {name}" for g, name in unlisted)
    )
    made = {(g, name) for g, name, _ in results}
    stale = sorted(listed - survivors)
    assert stale == [], (
        "listed in equivalent_mutants.py but caught, or no longer made: drop them:\n"
        + "\n".join(
            f"  {g}: {name}{'' if (g, name) in made else ' (no such mutant)'}" for g, name in stale
        )
    )


def test_the_mutation_operators_reach_every_solution_block(results):
    mutated = {g for g, _, _ in results}
    for e in EXERCISES:
        assert e.grade_id in mutated, f"no mutant of {e.grade_id}"
