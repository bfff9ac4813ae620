"""Which generated cases the checks' own tests need: for every rule, the cases that are the first
failing one of some mutant of the reference (tests/grading/mutation.py) or some known mistake
(course/grading/judging/mistakes/).

A case that is no subject's first failing case can be removed without changing the grade or the
feedback of any mutant or known mistake (each still fails first where it did), but not always its
hint: a hint is proven on every case of the exercise, and such a case may be the one that tells two
mistakes apart. Nor is it redundant for a student: the mutation operators never touch a signature's
defaults (the long runs that reach the default max_turns, say). Run from the repository's root, two
processes at a time (a few minutes):

    PYTHONPATH=. python tests/grading/case_needs.py [GRADE_ID ...] > needs.txt
"""
from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutation import mutants  # noqa: E402
from test_mutation import MUTANT_TIMEOUT, solution_cell  # noqa: E402

from course.grading.judging import oracle, reference, registry  # noqa: E402
from course.grading.judging.mistakes import known  # noqa: E402
from course.grading.judging.notebook_context import NotebookContext  # noqa: E402

REGISTRY = registry.shipped()
EXERCISES = {e.grade_id: e for e in REGISTRY.exercises.values() if e.rules}


def first_failures(grade_id: str, fn, timeout: float) -> list[int | None]:
    """For each rule of the exercise, the index of the first case on which `fn` differs from the
    reference."""
    exercise, context, found = EXERCISES[grade_id], NotebookContext(fn, REGISTRY, timeout), []
    for rule in exercise.rules:
        first = None
        for i, case in enumerate(rule.all_cases()):
            mine = context.call(*case.args, scenario=case.scenario, **case.kwargs)
            if oracle.verdict(rule, mine, oracle.reference_outcome(exercise, rule, i), case):
                first = i
                break
        found.append(first)
    return found


def subject(kind: str, grade_id: str, what: str) -> list[int | None] | None:
    """first_failures of one mutant (its source) or one known mistake (its name); None for a mutant
    that breaks."""
    exercise = EXERCISES[grade_id]
    if kind == "mistake":
        return first_failures(grade_id, next(m.fn for m in known()[grade_id] if m.name == what),
                              MUTANT_TIMEOUT)
    try:
        namespace = reference.run_cells(solution_cell(exercise)[0] + [what], exercise.notebook)
    except Exception:  # noqa: BLE001 - a mutant that breaks the cell needs no case
        return None
    return first_failures(grade_id, namespace[exercise.function], MUTANT_TIMEOUT)


def main(grade_ids: list[str]) -> None:
    jobs = [(kind, g, what) for g in grade_ids for kind, what in
            [("mistake", m.name) for m in known().get(g, [])] +
            [("mutant", m.source) for m in mutants(solution_cell(EXERCISES[g])[1])]]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        firsts = list(pool.map(subject, *zip(*jobs, strict=True), chunksize=2))
    needed: dict[tuple[str, int], set[int]] = {}
    for (_, g, _), first in zip(jobs, firsts, strict=True):
        for k, i in enumerate(first or []):
            if i is not None:
                needed.setdefault((g, k), set()).add(i)
    kept = total = 0
    for g in grade_ids:
        for k, rule in enumerate(EXERCISES[g].rules):
            n, need = len(rule.all_cases()), sorted(needed.get((g, k), ()))
            kept, total = kept + len(need), total + n
            print(f"{g} rule {k}: {len(need)} of {n} cases needed {need}")
    print(f"{kept} of {total} cases are some mutant's or known mistake's first failing case")


if __name__ == "__main__":
    main(sys.argv[1:] or list(EXERCISES))
