"""The exercises the grader knows: those shipped in `course.grading.judging.checks`, plus an
instructor's hidden checks from a folder of Python files (`--tests DIR`), merged by grade_id."""
from __future__ import annotations

import dataclasses
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING

from ...contract.exercise import Exercise

if TYPE_CHECKING:  # imported when first needed: it imports the SDK
    from ...scenarios import Scenario


@dataclasses.dataclass
class Registry:
    exercises: dict[str, Exercise]  # by grade_id, in the order they were defined
    # grading-only scenarios by name (the course's own are always known)
    scenarios: dict[str, Scenario]

    def exercise(self, grade_id: str) -> Exercise:
        if grade_id not in self.exercises:
            raise KeyError(f"no exercise {grade_id!r}; known: "
                           f"{', '.join(self.exercises) or 'none'}")
        return self.exercises[grade_id]

    def scenario(self, scenario: Scenario | str | None) -> Scenario | None:
        from ...scenarios import get

        if scenario is None or not isinstance(scenario, str):
            return scenario
        return self.scenarios[scenario] if scenario in self.scenarios else get(scenario)

    def assignments(self) -> dict[str, list[Exercise]]:
        """Exercises grouped by the notebook that holds them (its stem, e.g.
        '03_the_first_loop')."""
        groups: dict[str, list[Exercise]] = {}
        for e in self.exercises.values():
            groups.setdefault(Path(e.notebook).stem or e.grade_id, []).append(e)
        return groups

    def merge(self, exercises: list[Exercise], more_scenarios: dict[str, Scenario]) -> None:
        """Add hidden checks: to the exercise with the same grade_id, or as a new exercise."""
        for e in exercises:
            hidden = [dataclasses.replace(c, hidden=True) for c in e.checks]
            if e.grade_id in self.exercises:
                known = self.exercises[e.grade_id]
                self.exercises[e.grade_id] = dataclasses.replace(
                    known, checks=known.checks + hidden
                )
            else:
                self.exercises[e.grade_id] = dataclasses.replace(e, checks=hidden)
        self.scenarios.update(more_scenarios)


def shipped() -> Registry:
    """The exercises and grading scenarios of `course.grading.judging.checks`."""
    from . import checks

    exercises: dict[str, Exercise] = {}
    for e in checks.EXERCISES:
        if e.grade_id in exercises:
            raise ValueError(f"two exercises use grade_id {e.grade_id!r}")
        exercises[e.grade_id] = e
    return Registry(exercises, dict(getattr(checks, "SCENARIOS", {})))


def load(tests_dir: str | Path | None = None, base: Registry | None = None) -> Registry:
    """The shipped exercises (or a copy of `base`), with the hidden checks of every *.py in
    tests_dir merged in."""
    registry = Registry(dict(base.exercises), dict(base.scenarios)) if base else shipped()
    for path in sorted(Path(tests_dir).glob("*.py")) if tests_dir else []:
        spec = importlib.util.spec_from_file_location(f"course_hidden_checks_{path.stem}", path)
        assert spec is not None and spec.loader is not None  # a .py file always has both
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        registry.merge(getattr(module, "EXERCISES", []),
                       {s.name: s for s in getattr(module, "SCENARIOS", [])})
    return registry
