"""The reference agent loop: Def. 3.1 of the material, made real.

    h = [user(prompt)]
    loop:
        a = model(h)                       # one call
        if a has no tool_use: done         # success (or another stop reason, below)
        if a limit is reached: stop        # budget, tokens, time, turns, repeats: tools not run
        b = results of a's calls, in order # refused or failed calls answered with is_error
        h = h + [a, b]; turns += 1

Every stop_reason is handled on purpose:

- end_turn: the model finished; `success`, the final message is appended.
- stop_sequence: generation hit one of `stop_sequences`; the text before it is
  the answer, so `success` too.
- tool_use: run the tools (the usual turn). Tools are run whenever the message
  holds tool_use blocks, whatever the stop_reason says (Def. 3.1 keys on U(a)).
- pause_turn: the server paused its own tool loop; h.a is sent back as it is
  to let it continue. The continuation counts as a turn, so T+1 still bounds
  the calls (Thm. 4.1), and the budget is checked before continuing.
- max_tokens: the response was cut (perhaps inside a tool_use, whose input is
  then incomplete); `error_max_tokens`, nothing of it is run or appended.
- refusal: the model declined; `error_refusal`, with stop_details in `detail`.
- model_context_window_exceeded: the window is full; `error_context_window`.
- anything else (a value added to the API later): `error_during_execution`.

`Agent.events(prompt)` yields what happens, step by step (see course.events);
`Agent.run(prompt)` consumes those events and returns a `Result`. Every exit,
an interrupt (KeyboardInterrupt) included, leaves `messages` satisfying the
pairing invariant P1-P3.
"""
from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator

import anthropic

from .events import (CONTEXT_WINDOW, DURING_EXECUTION, ESCALATED, MAX_BUDGET, MAX_TOKENS, MAX_TURNS, REFUSAL,
                     REPEATED, SUBTYPES, SUCCESS, TIMEOUT, TOKEN_BUDGET, Finished, LimitHit, ModelCall, ModelResponse,
                     Result, ToolEnd, ToolStart)
from .gate import Gate
from .messages import as_dict, text, text_of, tool_result, tool_uses
from .pricing import cost_usd
from .tools import Toolbox

__all__ = ["Agent", "Finished", "Hooks", "LimitHit", "Limits", "ModelCall", "ModelResponse", "Result", "Stop",
           "SUBTYPES", "ToolEnd", "ToolStart", "batches", "finish", "CONTEXT_WINDOW", "DURING_EXECUTION", "ESCALATED",
           "MAX_BUDGET", "MAX_TOKENS", "MAX_TURNS", "REFUSAL", "REPEATED", "SUCCESS", "TIMEOUT", "TOKEN_BUDGET"]

# stop reasons that end the run with an error: the response is not a usable answer
STOP_SUBTYPES = {"max_tokens": MAX_TOKENS, "refusal": REFUSAL, "model_context_window_exceeded": CONTEXT_WINDOW}
FINISHED = ("end_turn", "stop_sequence")  # stop reasons of a finished answer


@dataclass
class Limits:
    """When the harness stops the loop. None means no limit."""

    max_turns: int | None = 10  # tool-use turns T: at most T+1 model calls (Thm. 4.1)
    max_budget_usd: float | None = None  # checked after each response, before its tools (Prop. 5.4)
    max_total_tokens: int | None = None  # input (cached included) + output tokens over all calls
    timeout_s: float | None = None  # wall clock, checked before each call and before tools
    max_repeats: int | None = None  # the same call this many times in a row is a loop, not progress
    max_tool_errors: int | None = None  # this many error results in a row: hand control to a human


@dataclass
class Hooks:
    """Code run around each tool call (like the Agent SDK's PreToolUse / PostToolUse).

    pre_tool(name, input) returns None to let the call run, or a reason to block it.
    post_tool(name, input, content, is_error) returns None, or new content for the result.
    A hook that raises turns into an is_error result for that call.
    """

    pre_tool: Callable[[str, dict], str | None] | None = None
    post_tool: Callable[[str, dict, str, bool], str | None] | None = None


class Stop(Exception):
    """Raised inside a step to end the run with a subtype."""

    def __init__(self, subtype: str, detail: str):
        super().__init__(detail)
        self.subtype = subtype
        self.detail = detail


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
    escalate: Callable[[str, list], str | None] | None = None  # a human: guidance to continue, or None to stop
    cost: Callable[[str, object], float] = cost_usd  # (model, usage) -> USD of one response
    clock: Callable[[], float] = time.monotonic

    def run(self, prompt: str | list) -> Result:
        """Run to the end and return the Result. `prompt` is a string or a whole history to continue."""
        return finish(self.events(prompt))

    def events(self, prompt: str | list) -> Iterator:
        """Yield ModelCall, ModelResponse, ToolStart, ToolEnd, LimitHit and finally Finished."""
        run = _Run(self, prompt)
        try:
            while True:
                yield from run.step()
        except Stop as stop:
            ended = stop
        except KeyboardInterrupt:  # a human pressed stop: h was never left half-built
            ended = Stop(DURING_EXECUTION, "interrupted by the user")
        if ended.subtype != SUCCESS:
            yield LimitHit(ended.subtype, ended.detail)
        yield Finished(run.result(ended))


class _Run:
    """The state (h, t) of one run, plus counters; `step()` is one pass of Def. 3.1."""

    def __init__(self, agent: Agent, prompt: str | list):
        self.agent = agent
        self.messages: list = [{"role": "user", "content": [text(prompt)]}] if isinstance(prompt, str) else list(prompt)
        self.turns = self.calls = 0
        self.usages: list[dict] = []
        self.tokens = 0  # total_tokens over usages, kept as they come
        self.spent = 0.0
        self.started = agent.clock()
        self.streak: tuple[str, int] = ("", 0)  # the last call's signature and how often in a row
        self.errors_in_row = 0
        self.final: dict | None = None
        self.stop_reason: str | None = None
        self.stop_details: dict | None = None
        self.guidance: list[str] = []  # a human's words, placed after the next results

    def elapsed(self) -> float:
        return self.agent.clock() - self.started

    def step(self) -> Iterator:
        a = yield from self.call_model()
        uses, reason = tool_uses(a), self.stop_reason
        if reason in STOP_SUBTYPES:  # a is cut or declined: h stays as it was
            details = f" ({json.dumps(self.stop_details)})" if self.stop_details else ""
            raise Stop(STOP_SUBTYPES[reason], f"stop_reason {reason}{details}: the answer is not complete")
        if not uses and reason in FINISHED:
            self.final = a
            raise Stop(SUCCESS, f"the model ended its turn ({reason})")
        if not uses and reason != "pause_turn":
            raise Stop(DURING_EXECUTION, f"stop_reason {reason} without tool_use blocks is not handled")
        self.check_limits(uses)
        if not uses:  # pause_turn: send h.a back as it is
            self.messages.append(a)
            self.turns += 1
            return
        results = yield from self.run_tools(uses)
        self.messages += [a, {"role": "user", "content": results + [text(g) for g in self.guidance]}]
        self.guidance = []
        self.turns += 1
        lim = self.agent.limits
        if lim.max_tool_errors is not None and self.errors_in_row >= lim.max_tool_errors:
            self.errors_in_row = 0
            self.messages[-1]["content"].append(text(self.hand_over(ESCALATED, f"{lim.max_tool_errors} tool errors in a row")))

    def call_model(self) -> Iterator:
        ag, lim = self.agent, self.agent.limits
        if lim.timeout_s is not None and self.elapsed() >= lim.timeout_s:
            raise Stop(TIMEOUT, f"wall clock {self.elapsed():.2f} s reached timeout_s={lim.timeout_s:g} before call {self.calls + 1}")
        yield ModelCall(self.calls + 1, list(self.messages))
        request = {"model": ag.model, "max_tokens": ag.max_tokens, "messages": self.messages}
        if ag.tools.tools:
            request["tools"] = ag.tools.definitions()
        if ag.system:
            request["system"] = ag.system
        if ag.stop_sequences:
            request["stop_sequences"] = ag.stop_sequences
        try:
            response = ag.client.messages.create(**request)
        except anthropic.APIError as e:
            raise Stop(DURING_EXECUTION, f"the API call failed: {type(e).__name__}: {e}") from None
        self.calls += 1
        usage = as_dict(response.usage)
        cost = ag.cost(ag.model, response.usage)
        self.usages.append(usage)
        self.tokens += total_tokens(usage)
        self.spent += cost
        self.stop_reason = response.stop_reason
        self.stop_details = as_dict(getattr(response, "stop_details", None))
        a = {"role": "assistant", "content": as_dict(response.content)}
        yield ModelResponse(self.calls, a, usage, cost, response.stop_reason)
        return a

    def check_limits(self, uses: list[dict]) -> None:
        """The checks between a response and its tools; any of them stops before the tools run."""
        lim = self.agent.limits
        if lim.max_budget_usd is not None and self.spent >= lim.max_budget_usd:
            raise Stop(MAX_BUDGET, f"spent ${self.spent:.6f} >= max_budget_usd ${lim.max_budget_usd:g}")
        if lim.max_total_tokens is not None and self.tokens >= lim.max_total_tokens:
            raise Stop(TOKEN_BUDGET, f"{self.tokens} tokens >= max_total_tokens {lim.max_total_tokens}")
        if lim.timeout_s is not None and self.elapsed() >= lim.timeout_s:
            raise Stop(TIMEOUT, f"wall clock {self.elapsed():.2f} s reached timeout_s={lim.timeout_s:g}")
        if lim.max_turns is not None and self.turns >= lim.max_turns:
            raise Stop(MAX_TURNS, f"the response after turn {self.turns} still asks to continue; max_turns={lim.max_turns}")
        if lim.max_repeats is None:
            return  # repeats are tracked only when they are limited
        for u in uses:
            sig = f"{u['name']}:{json.dumps(u['input'], sort_keys=True)}"
            self.streak = (sig, self.streak[1] + 1 if sig == self.streak[0] else 1)
            if self.streak[1] >= lim.max_repeats:
                self.guidance.append(self.hand_over(REPEATED, f"{u['name']} called with the same input {self.streak[1]} times in a row"))
                self.streak = ("", 0)

    def hand_over(self, subtype: str, reason: str) -> str:
        """Ask the human (`escalate`) for guidance to continue with; None, or no human, stops the run."""
        guidance = self.agent.escalate(reason, list(self.messages)) if self.agent.escalate else None
        if guidance is None:
            raise Stop(subtype, reason)
        return guidance

    def run_tools(self, uses: list[dict]) -> Iterator:
        """One tool_result per tool_use, in request order; consecutive read-only calls run concurrently."""
        results: list[dict] = []
        for group in batches(uses, self.agent.tools.is_read_only):
            for u in group:
                yield ToolStart(u["id"], u["name"], u["input"], self.elapsed())
            if len(group) == 1:
                outcomes = [self.run_one(group[0])]
            else:
                pool = ThreadPoolExecutor(max_workers=min(8, len(group)))
                try:
                    outcomes = list(pool.map(self.run_one, group))
                finally:  # an interrupt must not wait for a hanging tool
                    pool.shutdown(wait=False, cancel_futures=True)
            for u, (content, is_error, started, ended) in zip(group, outcomes):
                results.append(tool_result(u["id"], content, is_error))
                yield ToolEnd(u["id"], u["name"], content, is_error, started, ended)
                self.errors_in_row = self.errors_in_row + 1 if is_error else 0
        return results

    def run_one(self, u: dict) -> tuple[str, bool, float, float]:
        """Gate, pre-hook, the tool, post-hook: (content, is_error, started, ended)."""
        started = self.elapsed()
        try:
            content, is_error = self.gated_call(u["name"], u["input"])
        except Exception as e:  # a failing hook or approver is the harness's error, reported to the model
            content, is_error = f"Error in the harness: {type(e).__name__}: {e}", True
        return content, is_error, started, self.elapsed()

    def gated_call(self, name: str, input: dict) -> tuple[str, bool]:
        ag = self.agent
        allowed, reason = ag.gate.permits(name, input)
        if allowed and ag.hooks.pre_tool:
            blocked = ag.hooks.pre_tool(name, input)
            allowed, reason = blocked is None, f"Blocked by a hook: {blocked}"
        if not allowed:
            return reason, True
        content, is_error = ag.tools.run(name, input)
        if ag.hooks.post_tool:
            replaced = ag.hooks.post_tool(name, input, content, is_error)
            content = content if replaced is None else replaced
        return content, is_error

    def result(self, stop: Stop) -> Result:
        total: dict[str, int] = {}
        for u in self.usages:
            for k, v in u.items():
                if isinstance(v, int):
                    total[k] = total.get(k, 0) + v
        messages = self.messages + ([self.final] if self.final else [])
        return Result(stop.subtype, text_of(self.final) if self.final else None, messages, self.calls, self.turns,
                      total, self.usages, self.spent, self.elapsed(), self.stop_reason, stop.detail)


def finish(events: Iterator) -> Result:
    """Consume a run's events; the Result carried by the last one."""
    for event in events:
        if isinstance(event, Finished):
            return event.result
    raise AssertionError("events() always ends with Finished")


def total_tokens(usage: dict) -> int:
    """Input (uncached, written and read from the cache) plus output tokens of one response."""
    return sum(usage.get(k) or 0 for k in ("input_tokens", "cache_creation_input_tokens",
                                           "cache_read_input_tokens", "output_tokens"))


def batches(uses: list[dict], read_only: Callable[[str], bool]) -> list[list[dict]]:
    """Split calls into runs of consecutive read-only calls (concurrent) and single other calls."""
    out: list[list[dict]] = []
    for u in uses:
        if read_only(u["name"]) and out and read_only(out[-1][0]["name"]):
            out[-1].append(u)
        else:
            out.append([u])
    return out
