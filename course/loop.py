"""The reference agent loop: Def. 3.1 of the material, made real.

    h = [user(prompt)]
    loop:
        a = model(h)                       # one call
        if a has no tool_use: done         # success (or another stop reason)
        if a limit is reached: stop        # budget, tokens, time, repeats, turns: tools not run
        b = results of a's calls, in order # refused or failed calls answered with is_error
        h = h + [a, b]; turns += 1

`Agent.events(prompt)` yields what happens, step by step (for views and
widgets); `Agent.run(prompt)` consumes those events and returns a `Result`.
Every exit leaves `messages` satisfying the pairing invariant P1-P3.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator

import anthropic

from .gate import Gate
from .messages import as_dict, text, tool_result, tool_uses, text_of
from .pricing import cost_usd
from .tools import Toolbox

# How a run ended, named like the Agent SDK's ResultMessage subtypes.
SUCCESS = "success"  # end_turn, or a stop_sequence: the model finished
MAX_TURNS = "error_max_turns"  # the response after the T-th turn still asked for tools
MAX_BUDGET = "error_max_budget_usd"  # spend reached max_budget_usd (checked after each response)
DURING_EXECUTION = "error_during_execution"  # the API failed even after the SDK's retries
MAX_TOKENS = "error_max_tokens"  # the response was cut at max_tokens: not an answer
REFUSAL = "error_refusal"  # the model declined
CONTEXT_WINDOW = "error_context_window"  # model_context_window_exceeded: the window is full
TOKEN_BUDGET = "error_max_total_tokens"  # input+output tokens reached max_total_tokens
TIMEOUT = "error_timeout"  # wall clock reached timeout_s
REPEATED = "error_repeated_call"  # the same tool with the same input max_repeats times in a row
ESCALATED = "error_escalated"  # handed to a human, who chose to stop

STOP_SUBTYPES = {"max_tokens": MAX_TOKENS, "refusal": REFUSAL, "model_context_window_exceeded": CONTEXT_WINDOW}


@dataclass
class Limits:
    """When the harness stops the loop. None means no limit."""

    max_turns: int | None = 10  # tool-use turns T: at most T+1 model calls (Thm. 4.1)
    max_budget_usd: float | None = None  # checked after each response, before its tools (Prop. 5.4)
    max_total_tokens: int | None = None  # input + output tokens over all calls
    timeout_s: float | None = None  # wall clock, checked before each call and before tools
    max_repeats: int | None = None  # the same call this many times in a row is a loop, not progress
    max_tool_errors: int | None = None  # this many error results in a row: hand control to a human


@dataclass
class Hooks:
    """Code run around each tool call (like the Agent SDK's PreToolUse / PostToolUse).

    pre_tool(name, input) returns None to let the call run, or a reason to block it.
    post_tool(name, input, content, is_error) returns None, or new content for the result.
    """

    pre_tool: Callable[[str, dict], str | None] | None = None
    post_tool: Callable[[str, dict, str, bool], str | None] | None = None


# Events: what `Agent.events` yields, in order.
@dataclass
class ModelCall:
    call: int  # 1-based number of this model call
    messages: list  # what is sent


@dataclass
class ModelResponse:
    call: int
    message: dict
    usage: dict
    cost_usd: float


@dataclass
class ToolStart:
    id: str
    name: str
    input: dict
    at: float  # seconds since the run started


@dataclass
class ToolEnd:
    id: str
    name: str
    content: str
    is_error: bool
    started: float
    ended: float


@dataclass
class LimitHit:
    subtype: str
    detail: str


@dataclass
class Result:
    """How a run ended and what it cost."""

    subtype: str
    text: str | None  # the final answer; None unless subtype is success
    messages: list  # the next request's messages, plus the final assistant message on success
    calls: int = 0
    turns: int = 0
    usage: dict = field(default_factory=dict)  # summed over calls
    usages: list = field(default_factory=list)  # one usage per call, in order
    cost_usd: float = 0.0
    duration_s: float = 0.0
    stop_reason: str | None = None  # of the last response
    detail: str = ""  # why it stopped, in words

    @property
    def is_error(self) -> bool:
        return self.subtype != SUCCESS


@dataclass
class Finished:
    result: Result


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
    cost: Callable[[str, object], float] = cost_usd
    clock: Callable[[], float] = time.monotonic

    def run(self, prompt: str | list) -> Result:
        """Run to the end and return the Result."""
        for event in self.events(prompt):
            if isinstance(event, Finished):
                return event.result
        raise AssertionError("events() always ends with Finished")

    def events(self, prompt: str | list) -> Iterator:
        """Yield ModelCall, ModelResponse, ToolStart, ToolEnd, LimitHit and finally Finished."""
        run = _Run(self, prompt)
        try:
            while True:
                yield from run.step()
        except Stop as stop:
            if stop.subtype != SUCCESS:
                yield LimitHit(stop.subtype, stop.detail)
            yield Finished(run.result(stop))


class _Run:
    """The state (h, t) of one run, plus counters; `step()` is one pass of Def. 3.1."""

    def __init__(self, agent: Agent, prompt: str | list):
        self.agent = agent
        self.messages: list = [{"role": "user", "content": [text(prompt)]}] if isinstance(prompt, str) else list(prompt)
        self.turns = self.calls = 0
        self.usages: list[dict] = []
        self.spent = 0.0
        self.started = agent.clock()
        self.streak: tuple[str, int] = ("", 0)  # the last call's signature and how often in a row
        self.errors_in_row = 0
        self.final: dict | None = None
        self.stop_reason: str | None = None
        self.guidance: list[str] = []

    def elapsed(self) -> float:
        return self.agent.clock() - self.started

    def step(self) -> Iterator:
        a = yield from self.call_model()
        uses = tool_uses(a)
        if self.stop_reason == "pause_turn":  # the server paused its own tool loop: send h.a back as is
            self.check_limits(uses)
            self.messages.append(a)
            self.turns += 1
            return
        if self.stop_reason in ("end_turn", "stop_sequence") and not uses:
            self.final = a
            raise Stop(SUCCESS, f"the model ended its turn ({self.stop_reason})")
        if self.stop_reason in STOP_SUBTYPES:
            raise Stop(STOP_SUBTYPES[self.stop_reason], f"stop_reason {self.stop_reason}: the answer is not complete")
        if not uses:
            raise Stop(DURING_EXECUTION, f"stop_reason {self.stop_reason} without tool_use blocks")
        self.check_limits(uses)
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
        self.spent += cost
        self.stop_reason = response.stop_reason
        a = {"role": "assistant", "content": as_dict(response.content)}
        yield ModelResponse(self.calls, a, usage, cost)
        return a

    def check_limits(self, uses: list[dict]) -> None:
        """The checks between a response and its tools; any of them stops before the tools run."""
        lim = self.agent.limits
        if lim.max_budget_usd is not None and self.spent >= lim.max_budget_usd:
            raise Stop(MAX_BUDGET, f"spent ${self.spent:.6f} >= max_budget_usd ${lim.max_budget_usd:g}")
        total = sum(u.get("input_tokens", 0) + u.get("output_tokens", 0) for u in self.usages)
        if lim.max_total_tokens is not None and total >= lim.max_total_tokens:
            raise Stop(TOKEN_BUDGET, f"{total} tokens >= max_total_tokens {lim.max_total_tokens}")
        if lim.timeout_s is not None and self.elapsed() >= lim.timeout_s:
            raise Stop(TIMEOUT, f"wall clock {self.elapsed():.2f} s reached timeout_s={lim.timeout_s:g}")
        if lim.max_turns is not None and self.turns >= lim.max_turns:
            raise Stop(MAX_TURNS, f"the response after turn {self.turns} still asks for tools; max_turns={lim.max_turns}")
        for u in uses:
            sig = f"{u['name']}:{sorted(u['input'].items()) if isinstance(u['input'], dict) else u['input']}"
            self.streak = (sig, self.streak[1] + 1 if sig == self.streak[0] else 1)
            if lim.max_repeats is not None and self.streak[1] >= lim.max_repeats:
                self.guidance.append(self.hand_over(REPEATED, f"{u['name']} called with the same input {self.streak[1]} times in a row"))
                self.streak = ("", 0)

    def hand_over(self, subtype: str, reason: str) -> str:
        """Ask the human for guidance to continue with (placed after the tool results); None stops the run."""
        guidance = self.agent.escalate(reason, list(self.messages)) if self.agent.escalate else None
        if guidance is None:
            raise Stop(subtype, reason)
        return guidance

    def run_tools(self, uses: list[dict]) -> Iterator:
        """One tool_result per tool_use, in request order; read-only runs concurrently."""
        done: dict[str, dict] = {}
        for group in batches(uses, self.agent.tools.is_read_only):
            for u in group:
                yield ToolStart(u["id"], u["name"], u["input"], self.elapsed())
            if len(group) > 1:
                with ThreadPoolExecutor(max_workers=min(8, len(group))) as pool:
                    outcomes = list(pool.map(self.run_one, group))
            else:
                outcomes = [self.run_one(group[0])]
            for u, (content, is_error, started, ended) in zip(group, outcomes):
                done[u["id"]] = tool_result(u["id"], content, is_error)
                yield ToolEnd(u["id"], u["name"], content, is_error, started, ended)
                self.errors_in_row = self.errors_in_row + 1 if is_error else 0
        return [done[u["id"]] for u in uses]

    def run_one(self, u: dict) -> tuple[str, bool, float, float]:
        """Gate, pre-hook, the tool, post-hook: (content, is_error, started, ended)."""
        ag = self.agent
        started = self.elapsed()
        allowed, reason = ag.gate.permits(u["name"], u["input"])
        if allowed and ag.hooks.pre_tool:
            blocked = ag.hooks.pre_tool(u["name"], u["input"])
            allowed, reason = blocked is None, f"Blocked by a hook: {blocked}"
        if not allowed:
            return reason, True, started, self.elapsed()
        content, is_error = ag.tools.run(u["name"], u["input"])
        if ag.hooks.post_tool:
            replaced = ag.hooks.post_tool(u["name"], u["input"], content, is_error)
            content = content if replaced is None else replaced
        return content, is_error, started, self.elapsed()

    def result(self, stop: Stop) -> Result:
        total: dict[str, int] = {}
        for u in self.usages:
            for k, v in u.items():
                if isinstance(v, int):
                    total[k] = total.get(k, 0) + v
        messages = self.messages + ([self.final] if self.final else [])
        return Result(stop.subtype, text_of(self.final) if self.final else None, messages, self.calls, self.turns,
                      total, self.usages, self.spent, self.elapsed(), self.stop_reason, stop.detail)


def batches(uses: list[dict], read_only: Callable[[str], bool]) -> list[list[dict]]:
    """Split calls into runs of consecutive read-only calls (concurrent) and single other calls."""
    out: list[list[dict]] = []
    for u in uses:
        if read_only(u["name"]) and out and read_only(out[-1][0]["name"]):
            out[-1].append(u)
        else:
            out.append([u])
    return out
