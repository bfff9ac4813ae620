"""The known mistakes (course/grading/mistakes/) graded in-process as check() grades them, once per test session
and language: several test files read the same Marks, and grading the ones that start the Claude Code CLI takes
seconds each."""
from __future__ import annotations

import functools
from pathlib import Path

from course.grading import registry
from course.grading.mark import Mark, run_exercise
from course.grading.notebook_context import CALL_TIMEOUT, NotebookContext
from course.i18n import speaking

FOLDER = Path(__file__).resolve().parents[1] / "course" / "grading" / "mistakes"
PATHS = sorted(FOLDER.glob("l[0-9]*.py"))
REGISTRY = registry.shipped()


def load(path: Path) -> dict:
    """A mistake's file run: GRADE_ID, the function, and MISTAKE (the hint that names it, or None when its
    behaviour is not one cause)."""
    meta: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), meta)
    return meta


def grade(grade_id: str, fn) -> list[Mark]:
    """One Mark per check of the exercise, with the notebook's in-process Context (as check() gives it: longer
    calls for an exercise that starts the Claude Code CLI)."""
    exercise = REGISTRY.exercise(grade_id)
    return run_exercise(exercise, NotebookContext(fn, REGISTRY, max(CALL_TIMEOUT, exercise.call_timeout)))


@functools.cache
def marks(path: Path, lang: str = "en") -> tuple[dict, list[Mark]]:
    """(the mistake's file run, its Marks in `lang`)."""
    meta = load(path)
    with speaking(lang):
        return meta, grade(meta["GRADE_ID"], meta[REGISTRY.exercise(meta["GRADE_ID"]).function])
