"""The course's lessons in order, the setup check of the first notebook, and the helpers of the loop
they grow."""
from __future__ import annotations

import difflib
import importlib.metadata
import json
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.requirements import Requirement

from .i18n import deferred, tr

# the setup check must import with a dependency missing: the loop helpers import theirs when called
if TYPE_CHECKING:
    from .api import LocalAPI
    from .scenarios import Scenario
    from .tools import Toolbox, Workspace


class Lessons(Sequence):
    """(stem, title) pairs, each title read in the language the course speaks at that moment."""

    def __init__(self, pairs: list[tuple[str, str]]):
        self.pairs = pairs

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(len(self))[i]]
        stem, title = self.pairs[i]
        return stem, tr(title)


# notebooks/<stem>.ipynb teaches; exercises/<stem>.ipynb is its graded exercise.
LESSONS = Lessons([
    ("00_start_here", deferred("Start here")),
    ("01_messages_and_blocks", deferred("Messages and blocks")),
    ("02_a_model_is_a_function", deferred("A model is a function")),
    ("03_the_first_loop", deferred("The first loop")),
    ("04_termination", deferred("Termination")),
    ("05_errors_and_the_gate", deferred("Errors and the gate")),
    ("06_other_stop_reasons", deferred("The other stop reasons")),
    ("07_context_growth_and_budgets", deferred("Context growth and budgets")),
    ("08_parallel_tools", deferred("Parallel tools")),
    ("09_guards_and_observability", deferred("Guards and observability")),
    ("10_managing_the_context", deferred("Managing the context")),
    ("11_workflows_versus_agents", deferred("Workflows versus agents")),
    ("12_three_loops", deferred("Three loops")),
    ("13_the_real_api", deferred("The real API")),
    ("14_the_agent_sdk", deferred("The Agent SDK")),
])
MIN_PYTHON = (3, 11)


@dataclass(frozen=True)
class Dependency:
    """One dependency of the course: what is required, and whether the installed version meets
    it."""

    name: str
    required: str  # the version specifier, e.g. ">=2.14"
    installed: str | None  # None when missing
    ok: bool


def declared() -> list[str]:
    """The course's runtime dependencies: pyproject.toml beside the package (a checkout), else the
    installed metadata.

    A checkout's pyproject.toml is the truth: a stale course.egg-info left in the checkout can
    shadow the metadata."""
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if pyproject.is_file():
        return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["dependencies"]
    return [line for line in importlib.metadata.requires("course") or []
            if Requirement(line).marker is None]


def requirements() -> list[Dependency]:
    """The course's runtime dependencies, checked against what is installed."""
    found = []
    for line in declared():
        req = Requirement(line)
        try:
            version = importlib.metadata.version(req.name)
        except importlib.metadata.PackageNotFoundError:
            version = None
        found.append(Dependency(req.name, str(req.specifier), version,
                                  version is not None
                                and req.specifier.contains(version, prereleases=True)))
    return found


def python_ok() -> bool:
    return sys.version_info[:2] >= MIN_PYTHON


# The lessons that grow the student's loop, in order; each ends with a code cell tagged LOOP_TAG.
LOOP_LESSONS = [stem for stem, _ in LESSONS[3:10]]
LOOP_TAG = "loop"
DIFF_TAG = "loop-diff"  # the markdown cell showing what changed since the previous lesson's loop


def tagged_source(path: str | Path, tag: str) -> str:
    """The source of the one cell of notebook `path` tagged `tag`; an error names the notebook when
    not exactly one."""
    cells = [c for c in json.loads(Path(path).read_text())["cells"]
             if tag in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise ValueError(f"{path}: {len(cells)} cells tagged {tag!r}, expected exactly 1")
    source = cells[0]["source"]
    return "".join(source) if isinstance(source, list) else source


def final_loop() -> Callable:
    """The student's agent_loop as the last loop lesson leaves it (lesson 09), run from the
    notebook's tagged cell."""
    namespace: dict = {}
    notebook = Path(__file__).resolve().parent.parent / "notebooks" / f"{LOOP_LESSONS[-1]}.ipynb"
    exec(tagged_source(notebook, LOOP_TAG), namespace)
    return namespace["agent_loop"]


def loop_diff(old: str, new: str, old_name: str, new_name: str) -> str:
    """What changed between two loop cells, as a markdown diff block."""
    lines = difflib.unified_diff(old.splitlines(), new.splitlines(), old_name, new_name, n=1,
                                 lineterm="")
    return "```diff\n" + "\n".join(lines) + "\n```"


def run_tool_for(toolbox: Toolbox) -> Callable[[str, dict], str]:
    """`run_tool(name, input)` over a Toolbox: the tool's output, or a RuntimeError carrying the
    error message."""
    def run_tool(name: str, input: dict) -> str:
        content, is_error = toolbox.run(name, input)
        if is_error:
            raise RuntimeError(content)
        return content
    return run_tool


def loop_setup(scenario: Scenario, *, api: LocalAPI | None = None,
               workspace: Workspace | None = None) -> tuple:
    """(client, model, tools, run_tool, prompt) to run `scenario` with an agent_loop; `api.requests`
    lists its calls."""
    from .client import MODEL, local_client

    toolbox = scenario.tools(workspace)
    client = local_client(api if api is not None else scenario.api())
    return client, MODEL, toolbox.definitions(), run_tool_for(toolbox), scenario.prompt


def canonical(messages: list) -> list[dict]:
    """A history written one way: SDK objects as dicts, a string content as a text block, is_error
    only when true."""
    from .messages import as_dict, content_blocks

    def block(b: dict) -> dict:
        return {k: v for k, v in b.items() if not (k == "is_error" and v is False)}

    return [{"role": m["role"], "content": [block(b) for b in content_blocks(m["content"])]}
            for m in as_dict(messages)]
