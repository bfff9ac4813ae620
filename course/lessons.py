"""The course's lessons in order, and the setup check of the first notebook."""
from __future__ import annotations

import importlib.metadata
import sys
from dataclasses import dataclass

from packaging.requirements import Requirement

# notebooks/<stem>.ipynb teaches; exercises/<stem>.ipynb is its graded exercise.
LESSONS = [
    ("00_start_here", "Start here"),
    ("01_messages_and_blocks", "Messages and blocks"),
    ("02_a_model_is_a_function", "A model is a function"),
    ("03_the_first_loop", "The first loop"),
    ("04_termination", "Termination"),
    ("05_errors_and_the_gate", "Errors and the gate"),
    ("06_other_stop_reasons", "The other stop reasons"),
    ("07_context_growth_and_budgets", "Context growth and budgets"),
    ("08_parallel_tools", "Parallel tools"),
    ("09_guards_and_observability", "Guards and observability"),
    ("10_managing_the_context", "Managing the context"),
    ("11_workflows_versus_agents", "Workflows versus agents"),
    ("12_three_loops", "Three loops"),
    ("13_the_real_api", "The real API"),
]
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Dependency:
    """One dependency of the course: what is required, and whether the installed version meets it."""

    name: str
    required: str  # the version specifier, e.g. ">=2.14"
    installed: str | None  # None when missing
    ok: bool


def requirements() -> list[Dependency]:
    """The course's runtime dependencies (from its package metadata), checked against what is installed."""
    found = []
    for line in importlib.metadata.requires("course") or []:
        req = Requirement(line)
        if req.marker is not None:  # an optional extra such as [test]
            continue
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        found.append(Dependency(req.name, str(req.specifier), version,
                                  version is not None and req.specifier.contains(version, prereleases=True)))
    return found


def python_ok() -> bool:
    return sys.version_info[:2] >= MIN_PYTHON
