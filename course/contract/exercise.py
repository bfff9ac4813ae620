"""The grading contract: exercises are lists of checks over Outcomes.

A check never sees the student's objects: it sees an `Outcome`, made of plain
data that crossed a process boundary (the JSON of the return value, the
requests the local API recorded, the tool calls the grader executed). The same
checks run in a notebook (`check(...)`, in-process, for feedback) and in the
grader (student code in a child process, the API on loopback in the grader).

Notebook cells (nbgrader schema 3, so solutions/ are nbgrader source notebooks):
- solution cell: {"grade": false, "solution": true, "locked": false, "grade_id":
  <Exercise.grade_id>}, with `### BEGIN SOLUTION` / `### END SOLUTION`; `python -m course assign`
  turns each block into `raise NotImplementedError("Exercise <grade_id>: <title>")`.
- check cell: {"grade": true, "solution": false, "locked": true, "grade_id": "<grade_id>_check",
  "points": <Exercise.points>}, holding `check("<grade_id>", <function>)`. The grader never runs
  check cells: it runs the code cells up to and including the solution cell, then calls the
  function.

Calls (`Context.call`, the same in check() and in the grader):
- `scenario` is a Scenario or a name (course.scenarios, or a checks module's SCENARIOS); every call
  gets a fresh LocalAPI and fresh tools for it.
- CLIENT is the genuine SDK client with max_retries=0 (every request is the student's own).
- RUN_TOOL(name, input) returns the tool's text; an error result (unknown tool, bad input, the tool
  raised) raises ToolFailed(content), a RuntimeError, which the student's loop must turn into
  is_error.
- AGENT_OPTIONS is the Agent SDK's ClaudeAgentOptions on the same recording API (the genuine Claude
  Code CLI, its HOME and config in a scratch folder), the scenario's tools as the in-process MCP
  server `course`, each run by the grader; none is allowed without asking (can_use_tool decides), or
  all are with AGENT_OPTIONS_ALLOWING. A function may be async: it is run to its end.
- CLOCK() reads 10 s per response the CLIENT has received so far, nothing for anything else: a
  deadline can be reached exactly, the same way on every machine.
- Outcome.requests/statuses/replies cover POST /v1/messages only (count_tokens is not a turn).
- A call that hangs is stopped after a time limit; Outcome.error then says so.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..i18n import tr

# Markers a check passes as arguments; the runner replaces them in the student's process.
CLIENT = "<client>"  # the genuine anthropic.Anthropic pointed at the recording API
# run_tool(name, input) -> str: the scenario's tool, run by the grader (raises on an error)
RUN_TOOL = "<run_tool>"
CLOCK = "<clock: 10 s per response>"  # clock() -> seconds that only the model moves (deterministic)
# ClaudeAgentOptions on the recording API, the scenario's tools asked for
AGENT_OPTIONS = "<agent options>"
# the same, the scenario's tools in allowed_tools
AGENT_OPTIONS_ALLOWING = "<agent options, tools allowed>"


@dataclass
class Outcome:
    """What one call of the student's function did, as plain data."""

    value: Any = None  # the return value after a JSON round trip (tuples become lists)
    error: str | None = None  # "ExceptionType: message" if the function raised, or why the run died
    requests: list[dict] = field(default_factory=list)  # request bodies the API received, in order
    statuses: list[int] = field(default_factory=list)  # the API's status for each request
    replies: list[dict] = field(default_factory=list)  # what the API answered to each request
    # tools run through RUN_TOOL, in order
    tool_calls: list[tuple[str, dict]] = field(default_factory=list)
    stdout: str = ""
    # {"args": [...], "kwargs": {...}}: the arguments after the call (None: not data)
    after: dict | None = None
    # the function was never called (error says why: the notebook, the time budget)
    unrun: bool = False
    # the call was stopped at its time limit (said by the trusted side, never the student's)
    timed_out: bool = False
    seconds: float = 0.0  # how long the call took, as the trusted side timed it


# levels of nesting a check reads; below them a value is "…" (no answer nests so deep; JSON allows
# ~1000)
DEEPEST = 100


def shallow(value: Any, limit: int = DEEPEST) -> Any:
    """`value` itself when no list or dict in it nests deeper than `limit`; else a copy whose deeper
    parts are "…", so that the checks, which read values recursively, never run out of stack."""
    stack = [(value, 0)]
    while stack:
        x, depth = stack.pop()
        if isinstance(x, (list, dict)):
            if depth >= limit:
                break
            stack.extend((v, depth + 1) for v in (x.values() if isinstance(x, dict) else x))
    else:
        return value

    def cut(x: Any, depth: int) -> Any:
        if isinstance(x, (list, dict)) and depth >= limit:
            return "…"
        if isinstance(x, dict):
            return {k: cut(v, depth + 1) for k, v in x.items()}
        return [cut(v, depth + 1) for v in x] if isinstance(x, list) else x

    return cut(value, 0)


class CheckFailed(Exception):
    """A failed check: what went wrong (translated by the check), and the likely mistake: an English
    sentence marked with `deferred`, translated here, so checks and their tests compare the English
    constants."""

    def __init__(self, reason: str, hint: str = ""):
        super().__init__(reason)
        self.reason = reason
        self.hint = tr(hint)


class Context(Protocol):
    def call(self, *args, scenario: str | None = None, **kwargs) -> Outcome:
        """Call the student's function with args (CLIENT / RUN_TOOL markers replaced), the API
        answering with `scenario`'s policy and RUN_TOOL running its tools."""


@dataclass
class Check:
    name: str  # what it checks, shown as "<grade_id>: <name>"
    fn: Callable[[Context], None]  # raises CheckFailed (or AssertionError) to fail
    points: float = 1.0
    hidden: bool = False  # shown to students only after grading


@dataclass
class Exercise:
    grade_id: str  # the nbgrader grade_id of the solution cell
    function: str  # the name the student defines
    title: str
    checks: list[Check]
    notebook: str = ""  # solutions/NN_slug.ipynb that holds it
    # the oracle's rules behind the checks (course.grading.judging.oracle)
    rules: list = field(default_factory=list)
    # seconds one call may take at least, where a call starts a harness (the Claude Code
    call_timeout: float = 0.0
    # CLI): more than a context's own limit; the batch gives the exercise that much time per case

    @property
    def points(self) -> float:
        return sum(c.points for c in self.checks)
