"""A variant of a known mistake never gets that mistake's hint unless it behaves identically on
every case.

The variants are the mistake's own mutants: mutmut's operators (mutation.mutants) applied to each
line a non-CLI known mistake's file marks `# the mistake`, one line at a time (that line alone
between the solution markers). Only those lines: the mutants of every line of every file (about
7,600, at about 0.1 s of CPU each) would cost some 13 minutes of CPU; those of the marked lines
(932) cost about 80 s (measured: 88 s of user time for this test with pytest's start, two workers).
Each mutant is graded as a student's function (hints included, with a mistake's time limit), and
whenever it is shown the mistake's hint, its outcome and the mistake's must be the same
(oracle.same) on every case of the exercise: computed here, from the two functions' own calls (the
mutant's each made once, by grading or here), not from hint()'s proof.
"""
from __future__ import annotations

import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

# tests/grading/, on sys.path as pytest imports this file
from case_identity import objects
from mutation import mutants

from course.contract.exercise import Outcome
from course.grading.judging import mistakes, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.judging.oracle import same
from course.grading.marks.mark import run_exercise
from course.i18n import tr

pytestmark = pytest.mark.slow  # 932 mutants of the known mistakes, each graded: not make check

REGISTRY = registry.shipped()
MARK = re.compile(r"#.*\bthe mistake\b")  # a comment saying where the mistake is
# seconds per call, as a mistake's (lesson 08's tools sleep)
MUTANT_TIMEOUT = mistakes.MISTAKE_TIMEOUT
KNOWN = [m for grade_id,
         found in sorted(mistakes.known().items()) if not REGISTRY.exercise(grade_id).call_timeout
         for m in found]


def marked(mistake: mistakes.Mistake) -> list[str]:
    """The mistake's file once per line it marks `# the mistake`, that line alone between the
    solution markers."""
    lines = (Path(mistakes.__path__[0]) / f"{mistake.name}.py").read_text().splitlines()
    return [
        "\n".join(lines[:i] + ["### BEGIN SOLUTION", line, "### END SOLUTION"] + lines[i + 1 :])
        + "\n"
        for i, line in enumerate(lines)
        if MARK.search(line)
    ]


def misnamed(mistake: mistakes.Mistake, source: str) -> str:
    """"" unless the mutant `source` of `mistake` is shown the mistake's hint while its outcome
    differs from the mistake's on a case; then that case, in words."""
    exercise = REGISTRY.exercise(mistake.grade_id)
    namespace: dict = {}
    try:
        exec(compile(source, f"<{mistake.name} mutant>", "exec"), namespace)
    except Exception:  # noqa: BLE001
        # a mutant that does not even define the function is no variant
        return ""
    context = Remembered(namespace[exercise.function])
    marks = run_exercise(exercise, context)
    if tr(mistake.hint) not in {m.hint for m in marks if not m.passed}:
        return ""
    for rule in exercise.rules:
        for index, case in enumerate(rule.all_cases()):
            # the mistake's own call, once per process
            theirs = mistakes.outcome(mistake, rule, index)
            mine = context.call(*case.args, scenario=case.scenario, **case.kwargs)
            if theirs is None or not same(rule, mine, theirs):
                return f"{tr(rule.name)}, {rule.label(index)}"
    return ""


class Remembered(NotebookContext):
    """A mutant's Context (a mistake's time limit per call) that calls it once per case: the check
    reads the outcomes of the calls grading made, and makes those grading did not need."""

    def __init__(self, fn):
        super().__init__(fn, REGISTRY, MUTANT_TIMEOUT)
        self.made: dict[tuple, Outcome] = {}

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        key = objects(args, kwargs, scenario)
        if key not in self.made:
            self.made[key] = super().call(*args, scenario=scenario, **kwargs)
        return self.made[key]


def of_exercise(grade_id: str) -> list[tuple[str, str, str]]:
    """(mistake, mutant name, misnamed()) for every mutant of the marked lines of the exercise's
    known mistakes."""
    return [(m.name, mutant.name, misnamed(m, mutant.source))
            for m in KNOWN if m.grade_id == grade_id for source in marked(m)
            for mutant in mutants(source)]


def judged() -> list[tuple[str, str, str]]:
    """of_exercise() of every exercise, two processes at a time, each exercise in one (its outcomes
    computed once)."""
    grade_ids = sorted({m.grade_id for m in KNOWN},
                       key=lambda g: -sum(m.grade_id == g for m in KNOWN))
    with ProcessPoolExecutor(max_workers=min(2, os.cpu_count() or 1),
                             mp_context=multiprocessing.get_context("fork")) as pool:
        return [found for each in pool.map(of_exercise, grade_ids) for found in each]


def test_a_mutant_of_a_known_mistake_gets_its_hint_only_when_it_behaves_the_same_on_every_case():
    results = judged()
    assert len(results) > 500, f"only {len(results)} mutants of the known mistakes' marked lines"
    wrong = [f"  {name}: {mutant}: differs on {why}" for name, mutant, why in results if why]
    assert wrong == [], (
        "mutants named by their mistake's hint that behave otherwise:\n" + "\n".join(wrong)
    )


@pytest.mark.parametrize("mistake", KNOWN, ids=lambda m: m.name)
def test_every_known_mistake_marks_the_lines_of_its_mistake(mistake):
    assert any(mutants(source) for source in marked(mistake)), \
        f"{mistake.name}: no line marked '# the mistake' that mutmut's operators change"
