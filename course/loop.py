"""The reference agent loop: lesson 09's `agent_loop` made production
grade (the Model's Def. 3.1).

The same steps in the same order as the lesson's loop, under the same
names: the wall clock; call the model and add up cost and tokens; end_turn
or stop_sequence is success; max_tokens, refusal or a full window stops;
budget, tokens, the cap and repeated calls stop before the tools;
pause_turn is sent back; `run_call` answers each tool_use.

Added by design: `events()`; a `Result` named like the Agent SDK's; a
response and its results appended together (an interrupt leaves P1-P3
intact); `batches`; `max_tool_errors`; `system`; a test `clock`; tool_use
blocks run whatever stop_reason says (Def. 3.1 keys on them).
"""
from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import anthropic

from .events import (CONTEXT_WINDOW, DURING_EXECUTION, ESCALATED,
                     MAX_BUDGET, MAX_TOKENS, MAX_TURNS, REFUSAL, REPEATED,
                     SUCCESS, TIMEOUT, TOKEN_BUDGET, Finished, LimitHit,
                     ModelCall, ModelResponse, Result, ToolEnd, ToolStart)
from .gate import BLOCKED, Gate
from .i18n import tr
from .messages import as_dict, text, text_of, tool_result, tool_uses
from .pricing import cost_usd
from .tools import Toolbox

__all__ = ["Agent", "FINISHED", "Hooks", "Limits", "STOP_SUBTYPES",
           "Stop", "batches", "finish"]

# stop reasons of a finished answer
FINISHED = ("end_turn", "stop_sequence")
STOP_SUBTYPES = {"max_tokens": MAX_TOKENS, "refusal": REFUSAL,
                 "model_context_window_exceeded": CONTEXT_WINDOW}
# the usage fields summed into the run's tokens
TOKENS = ("input_tokens", "cache_creation_input_tokens",
          "cache_read_input_tokens", "output_tokens")


@dataclass
class Limits:
    """When the harness stops the loop. None means no limit."""

    # tool-use turns T: at most T+1 model calls (Thm. 4.1)
    max_turns: int | None = 10
    # checked after each response, before its tools (Prop. 5.4)
    max_budget_usd: float | None = None
    # input (cached included) + output tokens over all calls
    max_total_tokens: int | None = None
    # wall clock, checked before each call
    timeout_s: float | None = None
    # the same call this many times in a row is a loop, not progress
    max_repeats: int | None = None
    # this many error results in a row: hand control to a human
    max_tool_errors: int | None = None


@dataclass
class Hooks:
    """Code around each tool call (the Agent SDK's PreToolUse /
    PostToolUse); a hook that raises is an error result.

    pre_tool(name, input) -> None, or why the call is blocked;
    post_tool(name, input, content, is_error) -> None, or new content."""

    pre_tool: Callable[[str, dict], str | None] | None = None
    post_tool: Callable[[str, dict, str, bool], str | None] | None = None


class Stop(Exception):
    """Raised inside a step to end the run with a subtype."""
    def __init__(self, subtype: str, detail: str):
        super().__init__(detail)
        self.subtype, self.detail = subtype, detail


@dataclass
class Agent:
    """A loop around `client` with tools, a gate, limits and hooks."""

    client: anthropic.Anthropic
    model: str
    tools: Toolbox = field(default_factory=Toolbox)
    limits: Limits = field(default_factory=Limits)
    gate: Gate = field(default_factory=Gate)
    hooks: Hooks = field(default_factory=Hooks)
    system: str | None = None
    max_tokens: int = 1024
    stop_sequences: list[str] | None = None
    # a human: guidance to continue, or None to stop
    escalate: Callable[[str, list], str | None] | None = None
    # (model, usage) -> USD of one response
    cost: Callable[[str, object], float] = cost_usd
    clock: Callable[[], float] = time.monotonic

    def run(self, prompt: str | list) -> Result:
        """Run to the end; `prompt` is a string or a whole history to
        continue."""
        return finish(self.events(prompt))

    def events(self, prompt: str | list) -> Iterator:
        """Yield ModelCall, ModelResponse, ToolStart, ToolEnd, LimitHit
        and finally Finished."""
        run = _Run(self, prompt)
        try:
            while True:
                yield from run.step()
        except Stop as stop:
            ended = stop
        # a human pressed stop: the history was never left half-built
        except KeyboardInterrupt:
            ended = Stop(DURING_EXECUTION, tr("interrupted by the user"))
        if ended.subtype != SUCCESS:
            yield LimitHit(ended.subtype, ended.detail)
        yield Finished(run.result(ended))


class _Run:
    """The state of one run: the history, the counters, and `step()`, one
    turn of the loop."""

    def __init__(self, agent: Agent, prompt: str | list):
        self.agent, self.limits = agent, agent.limits
        if isinstance(prompt, str):
            prompt = [{"role": "user", "content": [text(prompt)]}]
        self.messages: list = list(prompt)
        self.turns = self.calls = self.errors_in_row = 0
        self.usages: list[dict] = []
        # USD and tokens (input, cached input included, and output) so far
        self.spent, self.tokens = 0.0, 0
        self.started = agent.clock()
        # the last call, and how many times in a row it came
        self.last_call, self.repeats = "", 0
        # the final message, once the model ends its turn
        self.final: dict | None = None
        # the last stop_reason (call_model sets it and self.stop_details)
        self.stop_reason: str | None = None

    def elapsed(self) -> float:  # seconds since the run started
        return self.agent.clock() - self.started

    def step(self) -> Iterator:
        a = yield from self.call_model()
        calls, reason = tool_uses(a), self.stop_reason
        # cut or declined: the history stays as it was
        if reason in STOP_SUBTYPES:
            said = tr("stop_reason {reason} {details}: no answer")
            details = json.dumps(self.stop_details or {})
            raise Stop(STOP_SUBTYPES[reason],
                       said.format(reason=reason, details=details))
        if not calls and reason in FINISHED:
            self.final = a
            said = tr("the model ended its turn ({reason})")
            raise Stop(SUCCESS, said.format(reason=reason))
        if not calls and reason != "pause_turn":
            said = tr("stop_reason {reason} without tool_use blocks "
                      "is not handled")
            raise Stop(DURING_EXECUTION, said.format(reason=reason))
        guidance = self.check_limits(calls)
        # none for pause_turn: the response goes back as it is
        results = yield from self.run_calls(calls)
        if calls:
            content = results + [text(g) for g in guidance]
            self.messages += [a, {"role": "user", "content": content}]
        else:
            self.messages += [a]
        self.turns += 1
        most = self.limits.max_tool_errors
        # a streak of failures: ask the human
        if most is not None and self.errors_in_row >= most:
            self.errors_in_row = 0
            streak = tr("{most} tool errors in a row").format(most=most)
            self.messages[-1]["content"].append(
                text(self.hand_over(ESCALATED, streak)))

    def call_model(self) -> Generator[object, None, dict]:
        """The wall clock, one call, and its cost and tokens added up; the
        response as an assistant message."""
        ag, lim = self.agent, self.limits
        if lim.timeout_s is not None and self.elapsed() >= lim.timeout_s:
            said = tr("wall clock {elapsed:.2f} s reached "
                      "timeout_s={timeout:g}")
            raise Stop(TIMEOUT, said.format(
                elapsed=self.elapsed(), timeout=lim.timeout_s))
        yield ModelCall(self.calls + 1, list(self.messages))
        request: dict = {"model": ag.model, "max_tokens": ag.max_tokens,
                         "messages": self.messages}
        options = {"tools": ag.tools.definitions(), "system": ag.system,
                   "stop_sequences": ag.stop_sequences}
        request.update({k: v for k, v in options.items() if v})
        try:
            response = ag.client.messages.create(**request)
        except anthropic.APIError as e:
            said = tr("the API call failed: {kind}: {error}")
            raise Stop(DURING_EXECUTION, said.format(
                kind=type(e).__name__, error=e)) from None
        self.calls += 1
        usage = as_dict(response.usage)
        cost = ag.cost(ag.model, response.usage)
        self.usages.append(usage)
        # a response's cost is known only once it has arrived
        self.spent += cost
        self.tokens += sum(usage.get(k) or 0 for k in TOKENS)
        self.stop_reason = response.stop_reason
        details = getattr(response, "stop_details", None)
        self.stop_details = as_dict(details)
        # as it came: a 5.x model's thinking blocks must return unmodified
        a = {"role": "assistant", "content": as_dict(response.content)}
        yield ModelResponse(self.calls, a, usage, cost,
                            response.stop_reason)
        return a

    def check_limits(self, calls: list[dict]) -> list[str]:
        """The checks between a response and its tools: stop before they
        run, or a human's guidance to send."""
        lim = self.limits
        # Prop. 5.4: overshoot < 1 response
        if (lim.max_budget_usd is not None
                and self.spent >= lim.max_budget_usd):
            said = tr("spent ${spent:.6f} >= max_budget_usd ${limit:g}")
            raise Stop(MAX_BUDGET, said.format(
                spent=self.spent, limit=lim.max_budget_usd))
        if (lim.max_total_tokens is not None
                and self.tokens >= lim.max_total_tokens):
            said = tr("{tokens} tokens >= max_total_tokens {limit}")
            raise Stop(TOKEN_BUDGET, said.format(
                tokens=self.tokens, limit=lim.max_total_tokens))
        # the cap: this response's tools never run
        if lim.max_turns is not None and self.turns >= lim.max_turns:
            said = tr("after turn {turns} the model still asks for "
                      "tools; max_turns={cap}")
            raise Stop(MAX_TURNS, said.format(
                turns=self.turns, cap=lim.max_turns))
        guidance, most = [], lim.max_repeats or 0  # None or 0: no limit
        for u in calls if most else []:
            this_input = json.dumps(u["input"], sort_keys=True)
            this_call = f"{u['name']}:{this_input}"
            same = this_call == self.last_call
            self.repeats = self.repeats + 1 if same else 1
            self.last_call = this_call
            # the same call again and again is a loop, not progress
            if self.repeats >= most:
                said = tr("{name} called {count} times in a row")
                guidance.append(self.hand_over(REPEATED, said.format(
                    name=u["name"], count=self.repeats)))
                self.last_call, self.repeats = "", 0
        return guidance

    def hand_over(self, subtype: str, reason: str) -> str:
        """Ask the human (`escalate`) for guidance to continue with; None,
        or no human, stops the run."""
        escalate = self.agent.escalate
        guidance = (escalate(reason, list(self.messages)) if escalate
                    else None)
        if guidance is None:
            raise Stop(subtype, reason)
        return guidance

    def run_calls(self, calls: list[dict]
                  ) -> Generator[object, None, list[dict]]:
        """One tool_result per tool_use, in request order; consecutive
        read-only calls run concurrently."""
        results: list[dict] = []
        for group in batches(calls, self.agent.tools.is_read_only):
            yield from (ToolStart(u["id"], u["name"], u["input"],
                                  self.elapsed()) for u in group)
            if len(group) == 1:
                outcomes = [self.run_call(group[0])]
            else:  # Prop. 6.2: read-only calls commute
                pool = ThreadPoolExecutor(max_workers=min(8, len(group)))
                try:
                    outcomes = list(pool.map(self.run_call, group))
                finally:  # an interrupt must not wait for a hanging tool
                    pool.shutdown(wait=False, cancel_futures=True)
            for u, outcome in zip(group, outcomes, strict=True):
                content, is_error, started, ended = outcome
                results.append(tool_result(u["id"], content, is_error))
                yield ToolEnd(u["id"], u["name"], content, is_error,
                              started, ended)
                self.errors_in_row = (self.errors_in_row + 1 if is_error
                                      else 0)
        return results

    def run_call(self, u: dict) -> tuple[str, bool, float, float]:
        """Gate, pre-hook, the tool, post-hook: (content, is_error,
        started, ended), whatever happens."""
        ag, started = self.agent, self.elapsed()
        try:
            allowed, reason = ag.gate.permits(u["name"], u["input"])
            # a hook may block a call the gate let through
            if allowed and ag.hooks.pre_tool:
                blocked = ag.hooks.pre_tool(u["name"], u["input"])
                allowed = blocked is None
                reason = tr(BLOCKED).format(reason=blocked)
            # Prop. 3.5: a refused call still gets a result (is_error)
            if not allowed:
                content, is_error = reason, True
            else:
                # a failing tool comes back as an error
                content, is_error = ag.tools.run(u["name"], u["input"])
                if ag.hooks.post_tool:
                    replaced = ag.hooks.post_tool(u["name"], u["input"],
                                                  content, is_error)
                    content = content if replaced is None else replaced
        # a failing hook or approver: the harness's error, told the model
        except Exception as e:
            content = tr("Error in the harness: {kind}: {error}").format(
                kind=type(e).__name__, error=e)
            is_error = True
        return content, is_error, started, self.elapsed()

    def result(self, stop: Stop) -> Result:
        counted = (Counter({k: v for k, v in u.items()
                            if isinstance(v, int)}) for u in self.usages)
        total = dict(sum(counted, Counter()))
        messages = self.messages + ([self.final] if self.final else [])
        answer = text_of(self.final) if self.final else None
        return Result(stop.subtype, answer, messages, self.calls,
                      self.turns, total, self.usages, self.spent,
                      self.elapsed(), self.stop_reason, stop.detail)


def finish(events: Iterator) -> Result:
    """Consume a run's events; the Result carried by the last one."""
    for event in events:
        if isinstance(event, Finished):
            return event.result
    raise AssertionError("events() always ends with Finished")


def batches(uses: list[dict], read_only: Callable[[str], bool]
            ) -> list[list[dict]]:
    """Split calls into runs of consecutive read-only calls (concurrent)
    and single other calls."""
    out: list[list[dict]] = []
    for u in uses:
        if read_only(u["name"]) and out and read_only(out[-1][0]["name"]):
            out[-1].append(u)
        else:
            out.append([u])
    return out
