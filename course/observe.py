"""What to log each iteration of a loop, read from `Agent.events` (observability).

Per model call: its number, the tool-use turn its tools made (lesson 04: a call
whose tools ran; the last call, or one stopped by a limit, makes none), the
stop_reason, every tool_use (name, input, id), every tool_result (id, is_error,
a preview of the content, latency), input and output tokens with running
totals, cost, and wall-clock time per iteration with its running total.
`Observer.watch(events)` passes the events through unchanged and fills
`records`; `table()` prints them without timings (timings vary from run to run;
plot them instead).
"""
from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .context import reported_inputs
from .events import Finished, LimitHit, ModelCall, ModelResponse, ToolEnd, ToolStart


@dataclass
class ToolRecord:
    id: str
    name: str
    input: dict
    is_error: bool = False
    preview: str = ""  # the start of the result's content
    latency_s: float = 0.0


@dataclass
class CallRecord:
    """One iteration: a model call and the tools it asked for (running them is a tool-use turn)."""

    index: int  # 1-based model call number
    turn: int | None = None  # the tool-use turn this call's tools made; None if none ran
    answered: bool = False  # the model's response arrived (False: the call failed, see the limit)
    stop_reason: str | None = None
    tools: list[ToolRecord] = field(default_factory=list)
    input_tokens: int = 0  # as sent, cached parts included
    output_tokens: int = 0
    total_tokens: int = 0  # running total of input + output over the run
    cost_usd: float = 0.0
    total_cost_usd: float = 0.0
    seconds: float = 0.0  # wall clock of this iteration (call and tools)
    total_seconds: float = 0.0


@dataclass
class Observer:
    """Collects one CallRecord per model call from a loop's events."""

    preview: int = 40  # characters of each tool result kept in the log
    clock: Callable[[], float] = time.monotonic
    records: list[CallRecord] = field(default_factory=list)
    result: object = None  # the run's Result, once Finished arrives
    limit: LimitHit | None = None

    def watch(self, events: Iterator) -> Iterator:
        """Yield `events` unchanged, recording them."""
        # the first event's time; the time of the ModelCall that opened a record
        started, call_started = None, 0.0
        for event in events:
            now = self.clock()
            started = now if started is None else started
            if isinstance(event, ModelCall):
                if self.records:
                    self._close(call_started, now, started)
                    # sent back as it was: a turn, as the loop counts
                    if self.records[-1].stop_reason == "pause_turn":
                        self._turn()
                call_started = now
                self.records.append(CallRecord(event.call))
            elif isinstance(event, ModelResponse):
                r = self.records[-1]
                r.answered, r.stop_reason = True, event.stop_reason
                r.input_tokens = reported_inputs([event.usage])[0]
                r.output_tokens = event.usage.get("output_tokens", 0)
                previous = self.records[-2] if len(self.records) > 1 else CallRecord(0)
                r.total_tokens = previous.total_tokens + r.input_tokens + r.output_tokens
                r.cost_usd = event.cost_usd
                r.total_cost_usd = previous.total_cost_usd + event.cost_usd
            elif isinstance(event, ToolStart):
                self._turn()
                self.records[-1].tools.append(ToolRecord(event.id, event.name, event.input))
            elif isinstance(event, ToolEnd):
                t = next(t for t in self.records[-1].tools if t.id == event.id)
                t.is_error, t.preview, t.latency_s = (event.is_error, event.content[: self.preview],
                                                      event.ended - event.started)
            elif isinstance(event, LimitHit):
                self.limit = event
            elif isinstance(event, Finished):
                self.result = event.result
                if self.records:
                    self._close(call_started, now, started)
            yield event

    @property
    def turns(self) -> int:
        """Tool-use turns so far (Result.turns at the end)."""
        return sum(r.turn is not None for r in self.records)

    def _turn(self) -> None:
        """The last call's tools ran (or its pause went back): it made the next turn."""
        if self.records[-1].turn is None:
            self.records[-1].turn = self.turns + 1

    def _close(self, call_started: float, now: float, started: float) -> None:
        self.records[-1].seconds = now - call_started
        self.records[-1].total_seconds = now - started

    def run(self, agent, prompt):
        """Run `agent` on `prompt` while recording; returns the Result."""
        for _ in self.watch(agent.events(prompt)):
            pass
        return self.result

    def lines(self) -> list[str]:
        """The log, one line per model call and one per tool call, without timings (they vary
        between runs)."""
        out = []
        for r in self.records:
            call = f"call {r.index}" + (f" (turn {r.turn})" if r.turn else "")
            if not r.answered:
                out.append(f"{call}: no response")
                continue
            out.append(f"{call}: stop_reason={r.stop_reason} in={r.input_tokens} "
                       f"out={r.output_tokens} total={r.total_tokens} cost=${r.total_cost_usd:.6f}")
            for t in r.tools:
                mark = "ERROR " if t.is_error else ""
                out.append(f"  {t.id} {t.name}({json.dumps(t.input, sort_keys=True)}) -> "
                           f"{mark}{t.preview!r}")
        if self.limit:
            out.append(f"limit: {self.limit.subtype}: {self.limit.detail}")
        return out

    def table(self) -> str:
        return "\n".join(self.lines())
