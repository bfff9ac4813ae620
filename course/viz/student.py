"""The student's own loop, run on a scenario and read back from the wire.

`StudentLoop(agent_loop)` wraps a function with the course's agent_loop contract,
`agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024, ...) ->
(answer, messages)`. It runs the function as the grader's `check()` does
(`course.contract.call.Call`: the genuine SDK client on a fresh local API, the scenario's tools,
ToolFailed for an error result), then builds the explorer's frames from the call's Outcome (every
request and response that crossed the wire) and from what the function returned. A loop that raises,
or returns something else than (answer, messages), gives a final frame that says so.
"""
from __future__ import annotations

import inspect
import traceback

import anthropic

from ..client import MODEL
from ..contract.call import Call
from ..contract.exercise import CLIENT, RUN_TOOL, Outcome
from ..events import MAX_BUDGET, MAX_TOKENS, MAX_TURNS, REFUSAL, SUCCESS
from ..gate import Gate
from ..i18n import tr
from ..messages import as_dict, blocks, tool_uses
from ..pricing import cost_usd
from .run import NO_ANSWER, RAISED, Frame, describe, returned, sent
from .style import shorten

# The feature each explorer control drives, and the keyword argument a loop takes it by (lessons 05
# and 07).
FEATURES = {"budget": "max_budget_usd", "gate": "gate"}
CALL_CAP = 50  # a loop that ignores max_turns is stopped after this many model calls


class StudentLoop:
    """A loop function with the agent_loop contract, and the explorer features its signature
    accepts."""

    def __init__(self, loop):
        if not callable(loop):
            raise TypeError(
                tr("loop must be a function with the agent_loop contract, not {kind}").format(
                kind=type(loop).__name__))
        self.loop = loop
        self.name = getattr(loop, "__name__", type(loop).__name__)
        params = inspect.signature(loop).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        self.accepts = {feature for feature,
                        keyword in FEATURES.items() if keyword in params or takes_any}

    def frames(self, scenario, max_turns: int, max_budget_usd: float | None, deny: tuple[str, ...],
               pause=None) -> list[Frame]:
        """Run the loop once on `scenario` (a Scenario) and read its frames back from the wire;
        `pause()`, if given, is called before each model call is answered and each tool runs."""
        options: dict[str, float] = {"max_turns": max_turns}
        if "budget" in self.accepts and max_budget_usd is not None:
            options[FEATURES["budget"]] = max_budget_usd
        call = Call(scenario, (CLIENT, MODEL, scenario.tools().definitions(), RUN_TOOL,
                               scenario.prompt), options,
                    cap=CALL_CAP, pause=pause)
        args, kwargs = call.arguments()
        if "gate" in self.accepts:  # an object, given in this process only
            kwargs[FEATURES["gate"]] = Gate(**{**vars(scenario.gate or Gate()), "deny": list(deny)})
        try:
            answer, messages = contract(self.loop(*args, **kwargs))
        except Exception as e:  # shown in the view, never as a traceback
            why: str | None = self.raised(e)
        else:
            why = None
        out = call.outcome({})  # what crossed the wire, as the grader reads it
        last = failed(out, why) if why else finished(out, answer, messages, max_turns,
                                                     max_budget_usd)
        return wire_frames(out) + [last]

    def raised(self, error: Exception) -> str:
        """What the loop raised, and at which line of its own code (not when the explorer raised it,
        on what it got)."""
        kind, detail = type(error).__name__, error_detail(error)
        code = getattr(self.loop, "__code__", None)
        mine = [f for f in traceback.extract_tb(error.__traceback__) if code
                and f.filename == code.co_filename]
        if not mine:
            return tr("{name} raised {error}").format(name=self.name, error=f"{kind}: {detail}")
        # the loop's line that was running: a cell's line number, as IPython's tracebacks count
        where = mine[-1]
        if not where.line:  # no source to quote (a function made by exec)
            return tr("{name} raised {kind} at line {line}: {detail}").format(
                name=self.name, kind=kind, line=where.lineno, detail=detail)
        return tr("{name} raised {kind} at line {line} ({code}): {detail}").format(
            name=self.name, kind=kind, line=where.lineno, code=shorten(where.line, 80),
            detail=detail)


def error_detail(error: Exception) -> str:
    """An exception's message; an API error's as the API's own status, type and message, not the
    SDK's dict."""
    if isinstance(error, anthropic.APIStatusError) and isinstance(error.body, dict):
        detail = error.body.get("error") or {}
        return f"{error.status_code} {detail.get('type')}: {detail.get('message')}"
    return str(error)


def contract(returned) -> tuple[str | None, list]:
    """(answer, messages) from what the loop returned, or a TypeError naming what is wrong."""
    if not (isinstance(returned, tuple) and len(returned) == 2):
        raise TypeError(tr("agent_loop must return (answer, messages), not {shape}").format(
            shape=shape(returned)))
    answer, messages = returned
    if answer is not None and not isinstance(answer, str):
        raise TypeError(
            tr("the answer must be a str or None, not {kind}").format(kind=type(answer).__name__))
    if not isinstance(messages, list):
        raise TypeError(
            tr("messages must be a list, not {kind}").format(kind=type(messages).__name__))
    return answer, [as_dict(m) for m in messages]


def shape(value) -> str:
    if isinstance(value, tuple):
        return tr("a tuple of {count}").format(count=len(value))
    return tr("a {kind}").format(kind=type(value).__name__)


def answers(out: Outcome) -> list[tuple[dict, int, dict]]:
    """(request body, status, reply) of each model call, in order."""
    return list(zip(out.requests, out.statuses, out.replies, strict=True))


def spent(out: Outcome) -> float:
    return sum(cost_usd(MODEL, reply["usage"]) for _, status,
               reply in answers(out) if status == 200)


def turns_in(messages: list) -> int:
    """Tool-use turns completed in a history: user messages carrying tool_result blocks."""
    return sum(1 for m in messages if m.get("role") == "user"
               and any(b.get("type") == "tool_result" for b in blocks(m)))


def wire_frames(out: Outcome) -> list[Frame]:
    """A frame per request sent and one per answer, as the API saw them."""
    frames: list[Frame] = []
    calls, cost = 0, 0.0
    for k, (body, status, reply) in enumerate(answers(out), 1):
        history = body.get("messages") or []
        turns = turns_in(history)
        frames.append(Frame(sent(k, turns), history, None, calls, turns, cost))
        if status != 200:
            error = (reply or {}).get("error", {})
            why = tr("call {call} failed: {status} {type}: {message}").format(
                call=k, status=status, type=error.get("type"), message=error.get("message"))
            frames.append(Frame(why, history, None, calls, turns, cost))
            continue
        calls, cost = k, cost + cost_usd(MODEL, reply["usage"])
        message = {"role": "assistant", "content": reply["content"]}
        frames.append(Frame(returned(k, describe(message, reply["stop_reason"])),
                            history, message, calls, turns, cost))
    return frames


def last_response(out: Outcome) -> dict | None:
    done = [reply for _, status, reply in answers(out) if status == 200]
    return done[-1] if done else None


def outcome(answer, last: dict | None, turns: int, max_turns: int, spent_usd: float,
            budget: float | None) -> str:
    """The result subtype the wire shows for a loop that returned `answer`."""
    if answer is not None:
        return SUCCESS
    stop = last["stop_reason"] if last else ""
    if stop == "tool_use" and budget is not None and spent_usd >= budget:
        return MAX_BUDGET
    if stop == "tool_use" and turns >= max_turns:
        return MAX_TURNS
    return {"max_tokens": MAX_TOKENS, "refusal": REFUSAL}.get(stop, NO_ANSWER)


def finished(out: Outcome, answer, messages: list, max_turns: int, budget: float | None) -> Frame:
    """The last frame: the history the loop returned, and the last response if it is not in it."""
    last = last_response(out)
    reply = {"role": "assistant", "content": last["content"]} if last else None
    dropped = reply if reply is not None and reply not in messages else None
    calls, turns, cost = out.statuses.count(200), turns_in(messages), spent(out)
    subtype = outcome(answer, last, turns, max_turns, cost, budget)
    stop = last and last["stop_reason"]
    if answer is not None:
        step = tr("returned an answer and {count} messages").format(count=len(messages))
    elif dropped and tool_uses(dropped):
        step = tr("returned None and {count} messages (last stop_reason {stop_reason} with "
                  "tool_use blocks not run)"
                  ).format(count=len(messages), stop_reason=stop)
    else:
        step = tr("returned None and {count} messages (last stop_reason {stop_reason})").format(
            count=len(messages), stop_reason=stop)
    return Frame(step, messages, dropped, calls, turns, cost, subtype, answer)


def failed(out: Outcome, why: str) -> Frame:
    """The last frame of a loop that raised: the last history sent, and why."""
    history = out.requests[-1].get("messages", []) if out.requests else []
    return Frame(why, history, None, out.statuses.count(200), turns_in(history), spent(out), RAISED,
                 None)
