"""One call of the student's function, seen from the trusted side: a fresh recording API and fresh
tools for the scenario, the arguments tagged for the child, and the Outcome built from the records.

Every harness that runs a student's function uses it: the notebook's `check()` and the loop explorer
(in-process, through `arguments`), and the grader (student code in a child, which decodes the same
tags).
"""
from __future__ import annotations

import json
import shutil
import tempfile
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..i18n import language, speaking, tr
from ..tools.workspace import RUNNER
from .child import agent_options, decode, tool_answer
from .exercise import AGENT_OPTIONS, AGENT_OPTIONS_ALLOWING, CLIENT, CLOCK, RUN_TOOL, Outcome

# importing scenarios imports the SDK: seconds the grader spends starting its fork server
if TYPE_CHECKING:
    from ..scenarios import Scenario

MESSAGES = "/v1/messages"  # count_tokens requests are recorded by the API but are not turns


class RunawayLoop(RuntimeError):
    """The student's function kept calling the model past the call's cap."""


def tag(value, tools=None) -> list:
    """A check's argument for the child: the markers by name (the Agent SDK's options with the
    definitions of `tools`), anything else as plain JSON data."""
    if isinstance(value, str) and value in (AGENT_OPTIONS, AGENT_OPTIONS_ALLOWING):
        return ["agent_options",
                {"tools": tools.definitions() if tools else [], "allow": value != AGENT_OPTIONS}]
    if isinstance(value, str) and value == CLIENT:
        return ["client"]
    if isinstance(value, str) and value == RUN_TOOL:
        return ["run_tool"]
    if isinstance(value, str) and value == CLOCK:
        return ["clock"]
    return ["value", json.loads(json.dumps(value))]


def watched(policy, cap: int | None, pause: Callable[[], None] | None):
    """`policy`, calling `pause()` (if given) before each answer and refusing to answer past `cap`
    model calls (the API then answers 500)."""
    def answer(conversation):
        if pause is not None:
            pause()
        if (
            cap is not None
            and sum(1 for m in conversation.messages if m["role"] == "assistant") >= cap
        ):
            raise RunawayLoop(tr("the explorer stops a loop after {limit} model calls; does your "
                                 "loop honour max_turns?").format(limit=cap))
        return policy(conversation)
    return answer


def spoken(policy, lang: str):
    """`policy` answering in `lang`, in whatever thread the server asks it."""
    def answer(conversation):
        with speaking(lang):
            return policy(conversation)
    return answer


class Call:
    """The API and tools one call of the student's function talks to, and what they recorded. `cap`:
    model calls answered at most; `pause()`, if given, is called before each model call is answered
    and each tool runs."""

    def __init__(self, scenario: Scenario | None, args: tuple, kwargs: dict,
                 runner: Callable | None = None, *,
                 cap: int | None = None, pause: Callable[[], None] | None = None):
        self.runner = runner  # where the tools' run_python runs (the grader's sandbox), if not here
        self.pause = pause
        self.api = (
            None
            if scenario is None
            else scenario.api()
            if cap is None and pause is None
            else scenario.api(policy=watched(scenario.policy, cap, pause))
        )  # the explorer's: the scenario's own policy
        # the submission's: the server's threads answering this call speak it too
        self.lang = language()
        if self.api is not None:
            self.api.policy = spoken(self.api.policy, self.lang)
        self.tools = scenario.tools() if scenario else None
        self.args = [tag(a, self.tools) for a in args]
        self.kwargs = {k: tag(v, self.tools) for k, v in kwargs.items()}
        self.tool_calls: list[tuple[str, dict]] = []
        self._lock = threading.Lock()
        self._server = self._home = None  # made by arguments() for AGENT_OPTIONS
        tags = self.args + list(self.kwargs.values())
        if self.api is None and any(t[0] in ("client", "agent_options") for t in tags):
            raise ValueError("a call passing CLIENT or AGENT_OPTIONS needs a scenario for the API "
                             "to answer with")

    def run_tool(self, name, input) -> tuple[str, bool]:
        """Run one of the scenario's tools for the student, recording the call: (content,
        is_error)."""
        with self._lock:
            self.tool_calls.append((name, json.loads(json.dumps(input))))
        if self.pause is not None:
            self.pause()
        if self.tools is None:
            return "Error: this call has no tools", True
        token = RUNNER.set(self.runner) if self.runner else None
        try:
            with speaking(self.lang):
                return self.tools.run(name, input)
        finally:
            if token:
                RUNNER.reset(token)

    def arguments(self) -> tuple[list, dict]:
        """The arguments for a call in this process: CLIENT an SDK client on this call's API (no
        retries: a failed call shows at once), RUN_TOOL this call's tools (ToolFailed on an error
        result), AGENT_OPTIONS the Agent SDK's options on this call's API served on loopback (the
        CLI speaks TCP), with a scratch HOME; `close()` stops that server and removes that HOME."""
        from ..api import Server
        from ..client import local_client  # imports the SDK, which the grader's side does not need

        client = local_client(self.api, max_retries=0) if self.api else None

        def agent(spec):
            if self._server is None:
                self._server, self._home = Server(self.api).start(), tempfile.mkdtemp(
                    prefix="course-home-")
            return agent_options(spec, self._server.base_url, self.run_tool, self._home)

        return decode(self.args, self.kwargs, client, lambda name,
                      input: tool_answer(*self.run_tool(name, input)), agent)

    def close(self) -> None:
        """Stop the loopback server and remove the scratch HOME that AGENT_OPTIONS made, if it made
        them."""
        if self._server is not None:
            self._server.stop()
            shutil.rmtree(self._home, ignore_errors=True)
            self._server = self._home = None

    def records(self) -> list:
        """The API's records of the model calls (POST /v1/messages), in order."""
        return [r for r in self.api.requests if r.path == MESSAGES] if self.api else []

    def outcome(self, result: dict) -> Outcome:
        """The Outcome from the child's (or the thread's) result and what the trusted side
        recorded."""
        records = self.records()
        return Outcome(value=result.get("value"), error=result.get("error"),
                       stdout=result.get("stdout", ""),
                       requests=[r.body if isinstance(r.body, dict) else {} for r in records],
                       statuses=[r.status for r in records], replies=[r.response for r in records],
                       tool_calls=list(self.tool_calls), after=result.get("after"),
                       timed_out=result.get("timed_out") is True,
                       seconds=float(result.get("seconds", 0.0)))
