"""What to log each turn of a loop, read from `Agent.events` (observability).

Per model call: its index, the stop_reason, every tool_use (name, input, id),
every tool_result (id, is_error, a preview of the content, latency), input and
output tokens with running totals, cost, and wall-clock time per turn with its
running total. `Observer.watch(events)` passes the events through unchanged
and fills `records`; `table()` prints them without timings (timings vary from
run to run; plot them instead).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

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
class TurnRecord:
    """One iteration: a model call and the tools it asked for."""

    index: int  # 1-based model call number
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
    """Collects one TurnRecord per model call from a loop's events."""

    preview: int = 40  # characters of each tool result kept in the log
    clock: Callable[[], float] = time.monotonic
    records: list[TurnRecord] = field(default_factory=list)
    result: object = None  # the run's Result, once Finished arrives
    limit: LimitHit | None = None

    def watch(self, events: Iterator) -> Iterator:
        """Yield `events` unchanged, recording them."""
        started = turn_started = None
        for event in events:
            now = self.clock()
            started = now if started is None else started
            if isinstance(event, ModelCall):
                if self.records:
                    self._close(turn_started, now, started)
                turn_started = now
                self.records.append(TurnRecord(event.call))
            elif isinstance(event, ModelResponse):
                r = self.records[-1]
                r.stop_reason = event.stop_reason
                r.input_tokens = reported_inputs([event.usage])[0]
                r.output_tokens = event.usage.get("output_tokens", 0)
                previous = self.records[-2] if len(self.records) > 1 else TurnRecord(0)
                r.total_tokens = previous.total_tokens + r.input_tokens + r.output_tokens
                r.cost_usd = event.cost_usd
                r.total_cost_usd = previous.total_cost_usd + event.cost_usd
            elif isinstance(event, ToolStart):
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
                    self._close(turn_started, now, started)
            yield event

    def _close(self, turn_started: float, now: float, started: float) -> None:
        self.records[-1].seconds = now - turn_started
        self.records[-1].total_seconds = now - started

    def run(self, agent, prompt):
        """Run `agent` on `prompt` while recording; returns the Result."""
        for _ in self.watch(agent.events(prompt)):
            pass
        return self.result

    def lines(self) -> list[str]:
        """The log, one line per turn and one per tool call, without timings (they vary between runs)."""
        out = []
        for r in self.records:
            out.append(f"turn {r.index}: stop_reason={r.stop_reason} in={r.input_tokens} out={r.output_tokens} "
                       f"total={r.total_tokens} cost=${r.total_cost_usd:.6f}")
            for t in r.tools:
                mark = "ERROR " if t.is_error else ""
                out.append(f"  {t.id} {t.name}({json.dumps(t.input, sort_keys=True)}) -> {mark}{t.preview!r}")
        if self.limit:
            out.append(f"limit: {self.limit.subtype}: {self.limit.detail}")
        return out

    def table(self) -> str:
        return "\n".join(self.lines())
