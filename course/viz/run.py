"""A run, frame by frame: what the message list, the counters and the outcome look
like after each model call, read from the events of `Agent.events()`.

`frames(events)` turns one run into a list of Frames; `frame_html(frame, limits)`
draws one, with the turn, call and budget meters. The explorer steps through
these frames without running anything again.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..events import SUCCESS, Finished, ModelCall, ModelResponse
from ..i18n import tr
from ..loop import Limits
from ..messages import tool_uses
from .message_list import MessageList
from .style import ERROR, FONT, LINE, MUTED, OK, dollars, esc, ink, n_calls, tag

# a student's loop raised, or returned something else than (answer, messages)
RAISED = "loop_raised"
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
        return tr("{stop_reason}: asks for {tools}").format(stop_reason=stop_reason,
                                                           tools=", ".join(u["name"] for u in uses))
    return tr("{stop_reason}: no tool_use").format(stop_reason=stop_reason)


def sent(call: int, turns: int) -> str:
    """The step of model call `call` being sent, after `turns` completed turns."""
    if call == 1:
        return tr("the prompt is sent")
    return tr("turn {turns} done: call {call} sends the history").format(turns=turns, call=call)


def returned(call: int, description: str) -> str:
    """The step of model call `call`'s response arriving."""
    return tr("call {call} returned ({description})").format(call=call, description=description)


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
            step = sent(e.call, turns)
            if e.messages[-1].get("role") == "assistant":
                step = tr("pause_turn: call {call} sends the history back as it is").format(
                    call=e.call)
            out.append(Frame(step, list(e.messages), None, calls, turns, spent))
        elif isinstance(e, ModelResponse):
            calls, spent, pending = e.call, spent + e.cost_usd, e.message
            out.append(Frame(returned(e.call, describe(e.message, e.stop_reason)),
                             out[-1].messages, pending, calls, turns, spent))
        elif isinstance(e, Finished):
            r = e.result
            dropped = pending if pending is not None and pending not in r.messages else None
            out.append(Frame(f"{r.subtype}: {r.detail}", r.messages, dropped, r.calls, r.turns,
                             r.cost_usd, r.subtype, r.text))
    return out


def meter(label: str, value: float, limit: float | None, shown: str) -> str:
    """A bar filled to value/limit, red once the limit is reached; a plain number without a
    limit."""
    labelled = tr("{label}: {shown}").format(label=label, shown=shown)
    if limit is None:
        unlimited = tr("(no limit)")
        return (f'<div style="margin:1px 0">{esc(labelled)} '
                f'<span style="color:{ink(MUTED)}">{esc(unlimited)}</span></div>')
    share = 1.0 if limit <= 0 else min(1.0, value / limit)
    colour = ERROR if value >= limit else OK
    bar = ('<span style="display:inline-block;width:160px;height:9px;border:1px solid '
           '#999;vertical-align:middle">'
           '<span '
           f'style="display:block;width:{share * 100:.0f}%;height:100%;background:{colour}"></span>'
           '</span>')
    return f'<div style="margin:1px 0">{bar} {esc(labelled)}</div>'


def meters_html(frame: Frame, limits: Limits) -> str:
    T, B = limits.max_turns, limits.max_budget_usd
    turns = f"{frame.turns} / {T}" if T is not None else str(frame.turns)
    calls = f"{frame.calls} / {T + 1} (T+1)" if T is not None else str(frame.calls)
    budget = f"{dollars(frame.spent)} / {dollars(B)}" if B is not None else dollars(frame.spent)
    return (meter(tr("tool-use turns"), frame.turns, T, turns)
            + meter(tr("model calls"), frame.calls, None if T is None else T + 1, calls)
            + meter(tr("budget"), frame.spent, B, budget))


def outcome_tag(outcome: str | None) -> str:
    """The subtype as a coloured label (green for success), or 'running' while the run goes on."""
    if outcome is None:
        return tag(tr("running"), MUTED)
    return ('<span '
            f'class="course-outcome">{tag(outcome, OK if outcome == SUCCESS else ERROR)}</span>')


def outcome_html(frame: Frame) -> str:
    """How the run stands at this frame: running, or its subtype and answer (None unless
    success)."""
    if frame.outcome is None:
        return tr("outcome at this step: {outcome} after {calls} so far").format(
            outcome=outcome_tag(None), calls=esc(n_calls(frame.calls)))
    return tr("outcome at this step: {outcome} answer: {answer}").format(
        outcome=outcome_tag(frame.outcome),
                                                                          answer=esc(frame.answer))


def pending_note(frame: Frame) -> str:
    if frame.outcome is None:
        return tr("response received; its tools run next")
    if tool_uses(frame.pending):
        return tr("the last response is not in the history: the run stopped, and its tool_use "
                  "blocks never ran")
    return tr("the last response is not in the history: the run stopped")


def step_line(frame: Frame, index: int | None = None, total: int | None = None) -> str:
    """What the frame shows, as a sentence: "step 3 / 6: call 2 returned (...)" (its step alone
    without a place)."""
    if index is None or not total:
        return frame.step
    return tr("step {index} / {last}: {step}").format(index=index, last=total - 1, step=frame.step)


def frame_parts(frame: Frame, limits: Limits, index: int | None = None,
                total: int | None = None) -> tuple[str, str]:
    """One frame in two parts: its head (step, meters, outcome), which names the run's limits and
    its place in the run, and the rest (the message list, with the pending response if any), which
    runs under other limits share."""
    # a history may end with an assistant message without tool_use: the answer, or a paused turn
    # sent back
    view = MessageList(frame.messages, final_assistant=True, pending=frame.pending,
                       pending_note=pending_note(frame) if frame.pending else "")
    step = step_line(frame, index, total)
    # the student's loop broke: say so first
    alarm = f";color:{ink(ERROR)}" if frame.outcome == RAISED else ""
    return (f'<div class="course-frame" style="{FONT};{LINE}">'
            f'<div style="font-weight:bold{alarm}">{esc(step)}</div>'
            f"{meters_html(frame, limits)}<div>{outcome_html(frame)}</div>",
            f"{view._repr_html_()}</div>")


def frame_html(frame: Frame, limits: Limits, index: int | None = None,
               total: int | None = None) -> str:
    """One frame: step, meters, outcome, and the message list (with the pending response, if
    any)."""
    return "".join(frame_parts(frame, limits, index, total))
