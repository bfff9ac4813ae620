"""A run, frame by frame: what the message list, the counters and the outcome look
like after each model call, read from the events of `Agent.events()`.

`frames(events)` turns one run into a list of Frames; `frame_html(frame, limits)`
draws one, with the turn, call and budget meters. The explorer steps through
these frames without running anything again.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..events import SUCCESS, Finished, ModelCall, ModelResponse
from ..loop import Limits
from ..messages import tool_uses
from .message_list import MessageList
from .style import ERROR, FONT, LINE, MUTED, OK, count, dollars, esc, tag

RAISED = "loop_raised"  # a student's loop raised, or returned something else than (answer, messages)
NO_ANSWER = "no_answer"  # a student's loop returned None for a reason the wire does not show


@dataclass(frozen=True)
class Frame:
    """The state of a run after one event: h, the response whose tools are pending, the counters."""

    step: str  # what just happened, in words
    messages: list  # the history h at this point
    pending: dict | None  # the latest response, while its tools are not (or never) run
    calls: int  # model calls made so far
    turns: int  # tool-use turns completed so far
    spent: float  # USD spent so far
    outcome: str | None = None  # the result subtype, on the last frame only
    answer: str | None = None  # the final text, on the last frame of a success


def describe(message: dict, stop_reason: str | None) -> str:
    uses = tool_uses(message)
    if uses:
        return f"{stop_reason}: asks for " + ", ".join(u["name"] for u in uses)
    return f"{stop_reason}: no tool_use"


def frames(events) -> list[Frame]:
    """One frame per model call sent, one per response, and the final one.

    ToolStart, ToolEnd and LimitHit add no frame: the results show in the next call's
    history, the limit in the final frame.
    """
    out: list[Frame] = []
    calls = turns = 0
    spent = 0.0
    pending: dict | None = None
    for e in events:
        if isinstance(e, ModelCall):
            turns = e.call - 1  # every step that did not stop completed one turn
            step = "the prompt is sent" if e.call == 1 else f"turn {turns} done: call {e.call} sends the history"
            if e.messages[-1].get("role") == "assistant":
                step = f"pause_turn: call {e.call} sends the history back as it is"
            out.append(Frame(step, list(e.messages), None, calls, turns, spent))
        elif isinstance(e, ModelResponse):
            calls, spent, pending = e.call, spent + e.cost_usd, e.message
            out.append(Frame(f"call {e.call} returned ({describe(e.message, e.stop_reason)})",
                             out[-1].messages, pending, calls, turns, spent))
        elif isinstance(e, Finished):
            r = e.result
            dropped = pending if pending is not None and pending not in r.messages else None
            out.append(Frame(f"{r.subtype}: {r.detail}", r.messages, dropped, r.calls, r.turns, r.cost_usd,
                             r.subtype, r.text))
    return out


def meter(label: str, value: float, limit: float | None, shown: str) -> str:
    """A bar filled to value/limit, red once the limit is reached; a plain number without a limit."""
    if limit is None:
        return (f'<div style="margin:1px 0">{esc(label)}: {esc(shown)} '
                f'<span style="color:{MUTED}">(no limit)</span></div>')
    share = 1.0 if limit <= 0 else min(1.0, value / limit)
    colour = ERROR if value >= limit else OK
    bar = (f'<span style="display:inline-block;width:160px;height:9px;border:1px solid #999;vertical-align:middle">'
           f'<span style="display:block;width:{share * 100:.0f}%;height:100%;background:{colour}"></span></span>')
    return f'<div style="margin:1px 0">{bar} {esc(label)}: {esc(shown)}</div>'


def meters_html(frame: Frame, limits: Limits) -> str:
    T, B = limits.max_turns, limits.max_budget_usd
    turns = f"{frame.turns} / {T}" if T is not None else str(frame.turns)
    calls = f"{frame.calls} / {T + 1} (T+1)" if T is not None else str(frame.calls)
    budget = f"{dollars(frame.spent)} / {dollars(B)}" if B is not None else dollars(frame.spent)
    return (meter("tool-use turns", frame.turns, T, turns)
            + meter("model calls", frame.calls, None if T is None else T + 1, calls)
            + meter("budget", frame.spent, B, budget))


def outcome_tag(outcome: str | None) -> str:
    """The subtype as a coloured label (green for success), or 'running' while the run goes on."""
    if outcome is None:
        return tag("running", MUTED)
    return f'<span class="course-outcome">{tag(outcome, OK if outcome == SUCCESS else ERROR)}</span>'


def outcome_html(frame: Frame) -> str:
    """How the run stands at this frame: running, or its subtype and answer (None unless success)."""
    if frame.outcome is None:
        return f"outcome at this step: {outcome_tag(None)} after {count(frame.calls, 'call')} so far"
    return f"outcome at this step: {outcome_tag(frame.outcome)} answer: {esc(frame.answer)}"


def pending_note(frame: Frame) -> str:
    if frame.outcome is None:
        return "response received; its tools run next"
    unrun = ", and its tool_use blocks never ran" if tool_uses(frame.pending) else ""
    return f"the last response is not in the history: the run stopped{unrun}"


def frame_html(frame: Frame, limits: Limits, index: int | None = None, total: int | None = None) -> str:
    """One frame: step, meters, outcome, and the message list (with the pending response, if any)."""
    # a history may end with an assistant message without tool_use: the answer, or a paused turn sent back
    view = MessageList(frame.messages, final_assistant=True, pending=frame.pending,
                       pending_note=pending_note(frame) if frame.pending else "")
    where = f"step {index} / {total - 1}: " if index is not None and total else ""
    alarm = f";color:{ERROR}" if frame.outcome == RAISED else ""  # the student's loop broke: say so first
    return (f'<div class="course-frame" style="{FONT};{LINE}">'
            f'<div style="font-weight:bold{alarm}">{esc(where + frame.step)}</div>'
            f"{meters_html(frame, limits)}<div>{outcome_html(frame)}</div>{view._repr_html_()}</div>")
