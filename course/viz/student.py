"""The student's own loop, run on a scenario and read back from the wire.

`StudentLoop(agent_loop)` wraps a function with the course's agent_loop contract,
`agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024, ...) -> (answer, messages)`.
It runs the function with the genuine SDK client on a fresh local API, then builds
the explorer's frames from what crossed the wire (every request and response the
API recorded) and from what the function returned. A loop that raises, or returns
something else than (answer, messages), gives a final frame that says so.
"""
from __future__ import annotations

import inspect
import traceback

import anthropic

from ..api import Conversation, LocalAPI
from ..client import MODEL, local_client
from ..events import MAX_BUDGET, MAX_TOKENS, MAX_TURNS, REFUSAL, SUCCESS
from ..gate import Gate
from ..i18n import tr
from ..messages import as_dict, blocks, tool_uses
from ..pricing import cost_usd
from .run import NO_ANSWER, RAISED, Frame, describe, returned, sent
from .style import shorten

# The feature each explorer control drives, and the keyword argument a loop takes it by (lessons 05 and 07).
FEATURES = {"budget": "max_budget_usd", "gate": "gate"}
CALL_CAP = 50  # a loop that ignores max_turns is stopped after this many model calls


class RunawayLoop(RuntimeError):
    """The loop kept calling the model past CALL_CAP."""


class ToolFailed(RuntimeError):
    """What run_tool raises when a tool fails: the loop turns it into an is_error result."""


def capped(policy, limit: int = CALL_CAP, pause=None):
    """The scenario's policy, refusing to answer after `limit` calls (the API then answers 500); `pause()`, if
    given, is called before each answer."""
    def answer(c: Conversation):
        if pause is not None:
            pause()
        if sum(1 for m in c.messages if m["role"] == "assistant") >= limit:
            raise RunawayLoop(tr("the explorer stops a loop after {limit} model calls; does your loop honour "
                                 "max_turns?").format(limit=limit))
        return policy(c)
    return answer


class StudentLoop:
    """A loop function with the agent_loop contract, and the explorer features its signature accepts."""

    def __init__(self, loop):
        if not callable(loop):
            raise TypeError(tr("loop must be a function with the agent_loop contract, not {kind}").format(
                kind=type(loop).__name__))
        self.loop = loop
        self.name = getattr(loop, "__name__", type(loop).__name__)
        params = inspect.signature(loop).parameters
        takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
        self.accepts = {feature for feature, keyword in FEATURES.items() if keyword in params or takes_any}

    def frames(self, scenario, max_turns: int, max_budget_usd: float | None, deny: tuple[str, ...],
               pause=None) -> list[Frame]:
        """Run the loop once on `scenario` (a Scenario) and read its frames back from the wire; `pause()`, if
        given, is called before each model call is answered and each tool runs."""
        api = LocalAPI(capped(scenario.policy, pause=pause), **scenario.options)
        client = local_client(api, max_retries=0)  # a failed call shows at once, as the loop handles it
        toolbox = scenario.tools()

        def run_tool(name: str, input: dict) -> str:
            if pause is not None:
                pause()
            content, is_error = toolbox.run(name, input)
            if is_error:
                raise ToolFailed(content)
            return content

        options = {"max_turns": max_turns}
        if "budget" in self.accepts and max_budget_usd is not None:
            options[FEATURES["budget"]] = max_budget_usd
        if "gate" in self.accepts:
            options[FEATURES["gate"]] = Gate(**{**vars(scenario.gate or Gate()), "deny": list(deny)})
        try:
            returned = self.loop(client, MODEL, toolbox.definitions(), run_tool, scenario.prompt, **options)
            answer, messages = contract(returned)
        except Exception as e:  # shown in the view, never as a traceback
            return wire_frames(api) + [failed(api, self.raised(e))]
        return wire_frames(api) + [finished(api, answer, messages, max_turns, max_budget_usd)]

    def raised(self, error: Exception) -> str:
        """What the loop raised, and at which line of its own code (not when the explorer raised it, on what it got)."""
        kind, detail = type(error).__name__, error_detail(error)
        code = getattr(self.loop, "__code__", None)
        mine = [f for f in traceback.extract_tb(error.__traceback__) if code and f.filename == code.co_filename]
        if not mine:
            return tr("{name} raised {error}").format(name=self.name, error=f"{kind}: {detail}")
        where = mine[-1]  # the loop's line that was running: a cell's line number, as IPython's tracebacks count
        if not where.line:  # no source to quote (a function made by exec)
            return tr("{name} raised {kind} at line {line}: {detail}").format(
                name=self.name, kind=kind, line=where.lineno, detail=detail)
        return tr("{name} raised {kind} at line {line} ({code}): {detail}").format(
            name=self.name, kind=kind, line=where.lineno, code=shorten(where.line, 80), detail=detail)


def error_detail(error: Exception) -> str:
    """An exception's message; an API error's as the API's own status, type and message, not the SDK's dict."""
    if isinstance(error, anthropic.APIStatusError) and isinstance(error.body, dict):
        detail = error.body.get("error") or {}
        return f"{error.status_code} {detail.get('type')}: {detail.get('message')}"
    return str(error)


def contract(returned) -> tuple[str | None, list]:
    """(answer, messages) from what the loop returned, or a TypeError naming what is wrong."""
    if not (isinstance(returned, tuple) and len(returned) == 2):
        raise TypeError(tr("agent_loop must return (answer, messages), not {shape}").format(shape=shape(returned)))
    answer, messages = returned
    if answer is not None and not isinstance(answer, str):
        raise TypeError(tr("the answer must be a str or None, not {kind}").format(kind=type(answer).__name__))
    if not isinstance(messages, list):
        raise TypeError(tr("messages must be a list, not {kind}").format(kind=type(messages).__name__))
    return answer, [as_dict(m) for m in messages]


def shape(value) -> str:
    if isinstance(value, tuple):
        return tr("a tuple of {count}").format(count=len(value))
    return tr("a {kind}").format(kind=type(value).__name__)


def answered(api: LocalAPI) -> list:
    """The /v1/messages requests, in order."""
    return [r for r in api.requests if r.path == "/v1/messages"]


def spent(api: LocalAPI) -> float:
    return sum(cost_usd(MODEL, r.response["usage"]) for r in answered(api) if r.status == 200)


def turns_in(messages: list) -> int:
    """Tool-use turns completed in a history: user messages carrying tool_result blocks."""
    return sum(1 for m in messages if m.get("role") == "user"
               and any(b.get("type") == "tool_result" for b in blocks(m)))


def wire_frames(api: LocalAPI) -> list[Frame]:
    """A frame per request sent and one per answer, as the API saw them."""
    out: list[Frame] = []
    calls, cost = 0, 0.0
    for k, r in enumerate(answered(api), 1):
        history = (r.body or {}).get("messages") or []
        turns = turns_in(history)
        out.append(Frame(sent(k, turns), history, None, calls, turns, cost))
        if r.status != 200:
            error = (r.response or {}).get("error", {})
            why = tr("call {call} failed: {status} {type}: {message}").format(
                call=k, status=r.status, type=error.get("type"), message=error.get("message"))
            out.append(Frame(why, history, None, calls, turns, cost))
            continue
        calls, cost = k, cost + cost_usd(MODEL, r.response["usage"])
        message = {"role": "assistant", "content": r.response["content"]}
        out.append(Frame(returned(k, describe(message, r.response["stop_reason"])),
                         history, message, calls, turns, cost))
    return out


def last_response(api: LocalAPI) -> dict | None:
    done = [r.response for r in answered(api) if r.status == 200]
    return done[-1] if done else None


def outcome(answer, last: dict | None, turns: int, max_turns: int, spent_usd: float, budget: float | None) -> str:
    """The result subtype the wire shows for a loop that returned `answer`."""
    if answer is not None:
        return SUCCESS
    stop = last and last["stop_reason"]
    if stop == "tool_use" and budget is not None and spent_usd >= budget:
        return MAX_BUDGET
    if stop == "tool_use" and turns >= max_turns:
        return MAX_TURNS
    return {"max_tokens": MAX_TOKENS, "refusal": REFUSAL}.get(stop, NO_ANSWER)


def finished(api: LocalAPI, answer, messages: list, max_turns: int, budget: float | None) -> Frame:
    """The last frame: the history the loop returned, and the last response if it is not in it."""
    last = last_response(api)
    reply = {"role": "assistant", "content": last["content"]} if last else None
    dropped = reply if reply is not None and reply not in messages else None
    calls, turns, cost = len([r for r in answered(api) if r.status == 200]), turns_in(messages), spent(api)
    subtype = outcome(answer, last, turns, max_turns, cost, budget)
    stop = last and last["stop_reason"]
    if answer is not None:
        step = tr("returned an answer and {count} messages").format(count=len(messages))
    elif dropped and tool_uses(dropped):
        step = tr("returned None and {count} messages (last stop_reason {stop_reason} with tool_use blocks not run)"
                  ).format(count=len(messages), stop_reason=stop)
    else:
        step = tr("returned None and {count} messages (last stop_reason {stop_reason})").format(
            count=len(messages), stop_reason=stop)
    return Frame(step, messages, dropped, calls, turns, cost, subtype, answer)


def failed(api: LocalAPI, why: str) -> Frame:
    """The last frame of a loop that raised: the last history sent, and why."""
    sent = answered(api)
    history = (sent[-1].body or {}).get("messages", []) if sent else []
    calls = len([r for r in sent if r.status == 200])
    return Frame(why, history, None, calls, turns_in(history), spent(api), RAISED, None)
