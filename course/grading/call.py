"""One call of the student's function, seen from the trusted side: a fresh recording API and fresh
tools for the scenario, the arguments tagged for the child, and the Outcome built from the records.

Both contexts use it: the notebook's `check()` (in-process) and the grader (student code in a child).
"""
from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Callable

from ..tools.workspace import RUNNER
from .exercise import AGENT_OPTIONS, AGENT_OPTIONS_ALLOWING, CLIENT, CLOCK, RUN_TOOL, Outcome

if TYPE_CHECKING:  # importing scenarios imports the SDK: seconds the grader spends starting its fork server
    from ..scenarios import Scenario

MESSAGES = "/v1/messages"  # count_tokens requests are recorded by the API but are not turns


def tag(value, tools=None) -> list:
    """A check's argument for the child: the markers by name (the Agent SDK's options with the definitions of
    `tools`), anything else as plain JSON data."""
    if isinstance(value, str) and value in (AGENT_OPTIONS, AGENT_OPTIONS_ALLOWING):
        return ["agent_options", {"tools": tools.definitions() if tools else [], "allow": value != AGENT_OPTIONS}]
    if isinstance(value, str) and value == CLIENT:
        return ["client"]
    if isinstance(value, str) and value == RUN_TOOL:
        return ["run_tool"]
    if isinstance(value, str) and value == CLOCK:
        return ["clock"]
    return ["value", json.loads(json.dumps(value))]


class Call:
    """The API and tools one call of the student's function talks to, and what they recorded."""

    def __init__(self, scenario: Scenario | None, args: tuple, kwargs: dict, runner: Callable | None = None):
        self.runner = runner  # where the tools' run_python runs (the grader's sandbox), if not here
        self.api = scenario.api() if scenario else None
        self.tools = scenario.tools() if scenario else None
        self.args = [tag(a, self.tools) for a in args]
        self.kwargs = {k: tag(v, self.tools) for k, v in kwargs.items()}
        self.tool_calls: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        tags = self.args + list(self.kwargs.values())
        if self.api is None and any(t[0] in ("client", "agent_options") for t in tags):
            raise ValueError("a call passing CLIENT or AGENT_OPTIONS needs a scenario for the API to answer with")

    def run_tool(self, name, input) -> tuple[str, bool]:
        """Run one of the scenario's tools for the student, recording the call: (content, is_error)."""
        with self._lock:
            self.tool_calls.append((name, json.loads(json.dumps(input))))
        if self.tools is None:
            return "Error: this call has no tools", True
        token = RUNNER.set(self.runner) if self.runner else None
        try:
            return self.tools.run(name, input)
        finally:
            if token:
                RUNNER.reset(token)

    def outcome(self, result: dict) -> Outcome:
        """The Outcome from the child's (or the thread's) result and what the trusted side recorded."""
        records = [r for r in self.api.requests if r.path == MESSAGES] if self.api else []
        return Outcome(value=result.get("value"), error=result.get("error"), stdout=result.get("stdout", ""),
                       requests=[r.body if isinstance(r.body, dict) else {} for r in records],
                       statuses=[r.status for r in records], replies=[r.response for r in records],
                       tool_calls=list(self.tool_calls), after=result.get("after"))
