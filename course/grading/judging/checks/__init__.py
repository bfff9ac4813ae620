"""The exercises of every lesson, each a list of checks over Outcomes (see ..exercise)."""
from __future__ import annotations

import importlib
import pkgutil

from ....contract.exercise import Exercise


def _lessons() -> list:
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("l"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


LESSONS = _lessons()
EXERCISES: list[Exercise] = [e for module in LESSONS for e in module.EXERCISES]
# grading-only policies
SCENARIOS = {s.name: s for module in LESSONS for s in getattr(module, "SCENARIOS", [])}

