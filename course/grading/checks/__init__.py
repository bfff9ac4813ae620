"""The exercises of every lesson, each a list of checks over Outcomes (see ..exercise)."""
from __future__ import annotations

import importlib
import pkgutil

from ..exercise import Exercise


def _lessons() -> list:
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("l"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


LESSONS = _lessons()
EXERCISES: list[Exercise] = [e for module in LESSONS for e in module.EXERCISES]
SCENARIOS = {s.name: s for module in LESSONS for s in getattr(module, "SCENARIOS", [])}  # grading-only policies


def exercise(grade_id: str) -> Exercise:
    """The exercise whose solution cell has this grade_id."""
    for e in EXERCISES:
        if e.grade_id == grade_id:
            return e
    raise KeyError(f"no exercise {grade_id!r}; known: {', '.join(e.grade_id for e in EXERCISES)}")
