"""Lesson 06, the other stop reasons: a switch over all seven, and pause_turn continued on the wire.

stop_action(stop_reason) -> "run_tools" | "answer" | "continue" | "stop"
  what the loop does next; an unknown value raises ValueError.
finish_turn(client, model, prompt, *, max_continuations=3) -> str | None
  one question, no tools: while the response is pause_turn (at most max_continuations times), send
  the conversation back as it is; the text of an end_turn or stop_sequence response, otherwise None.
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...i18n import deferred, tr, tr_plural
from ...scenarios import Scenario, get, say
from ..exercise import CLIENT, Check, Exercise
from .common import ADDED, DROPPED, accepted, expect, returned, same_messages, text_of

SWITCH = {"tool_use": "run_tools", "end_turn": "answer", "stop_sequence": "answer", "max_tokens": "stop",
          "refusal": "stop", "model_context_window_exceeded": "stop", "pause_turn": "continue"}
NOT_TOOL_USE = deferred("treating a stop_reason that ends the turn without an answer as an answer")
NOT_AN_ANSWER = deferred("treating stop_sequence as no answer: the reply stopped at your stop sequence, its text is "
                         "the answer")
PAUSE_FINAL = deferred("treating pause_turn as the end: the turn is not finished, send it back")
TOOLS_AS_OTHER = deferred("not running tools on tool_use: it is the one stop_reason that continues with tools")
SEND_AS_IS = deferred("adding a message before sending a paused turn back: send h.a as it is")
DROPS_PAUSED = deferred("leaving paused replies out of the continuation: append each one, keep the earlier ones")
UNKNOWN = deferred("accepting an unknown stop_reason silently: raise, so a new value is noticed")
NO_LIMIT = deferred("continuing paused turns without a limit")


def switch_hint(want: str, got) -> str:
    """The mistake, named only from which action was expected and which one came back."""
    if want == "continue" and got in ("answer", "stop"):
        return PAUSE_FINAL
    if want == "stop" and got == "answer":
        return NOT_TOOL_USE
    if want == "answer" and got == "stop":
        return NOT_AN_ANSWER
    return TOOLS_AS_OTHER if want == "run_tools" else ""


def switch(ctx) -> None:
    for reason, action in SWITCH.items():
        out = ctx.call(reason)
        returned(out)
        expect(out.value == action, tr("stop_action({reason!r}) returned {value!r}, expected {action!r}").format(
            reason=reason, value=out.value, action=action), switch_hint(action, out.value))
    out = ctx.call("thinking_too_hard")
    expect(out.error is not None and out.error.startswith("ValueError"),
           tr("stop_action('thinking_too_hard') returned {value!r} instead of raising ValueError").format(
               value=out.value), UNKNOWN)


def always_pausing(c: Conversation) -> Turn:
    return say(f"Still searching (part {c.calls_so_far + 1})...", stop_reason="pause_turn")


ENDLESS_PAUSE = Scenario("grading_endless_pause", "A turn that pauses every time",
                         "What changed in the latest release?",
                         always_pausing)
SCENARIOS = [ENDLESS_PAUSE]


def ask(ctx, scenario, **options):
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(CLIENT, MODEL, sc.prompt, scenario=sc, **options)
    accepted(out)
    returned(out)
    return out


def resent(out, prompt: str) -> None:
    """Each continuation sends the previous request plus the paused reply as received, nothing else."""
    for k in range(1, len(out.requests)):
        want = [{"role": "user", "content": prompt}] + [{"role": "assistant", "content": r["content"]}
                                                          for r in out.replies[:k]]
        what = tr_plural("continuation {number} is not the prompt and the {number} paused reply so far",
                         "continuation {number} is not the prompt and the {number} paused replies so far", k)
        same_messages(out.requests[k]["messages"], want, what.format(number=k),
                      named={ADDED: SEND_AS_IS, DROPPED: DROPS_PAUSED})


def paused(ctx) -> None:
    out = ask(ctx, "pause_turn")
    expect(not any(r.get("tools") for r in out.requests), tr("a request offered tools; finish_turn asks with no tools"))
    expect(len(out.requests) >= 2, tr("{count} request for a turn that paused; expected 2").format(
        count=len(out.requests)), PAUSE_FINAL)
    resent(out, get("pause_turn").prompt)
    expect(len(out.requests) == 2, tr("{count} requests for a turn paused once; expected 2").format(
        count=len(out.requests)))
    expect(out.value == text_of(out.replies[1]),
           tr("returned {value!r}; expected the final reply's text").format(value=out.value))


def not_answers(ctx) -> None:
    out = ask(ctx, "one_shot")
    expect(out.value == "Paris", tr("one_shot: returned {value!r}, expected 'Paris'").format(value=out.value))
    out = ask(ctx, "refusal")
    expect(out.value is None, tr("a refusal was returned as the answer: {value!r}").format(value=out.value),
           NOT_TOOL_USE)
    expect(len(out.requests) == 1, tr("{count} requests after a refusal; expected 1").format(count=len(out.requests)))


def limited(ctx) -> None:
    out = ask(ctx, ENDLESS_PAUSE, max_continuations=2)
    n = len(out.requests)
    expect(n == 3, tr("max_continuations=2 with a turn that always pauses: {count} requests, expected 3").format(
        count=n), NO_LIMIT if n > 3 else PAUSE_FINAL if n == 1 else "")
    resent(out, ENDLESS_PAUSE.prompt)
    expect(out.value is None, tr("returned {value!r}; a turn still paused is not an answer").format(value=out.value),
           PAUSE_FINAL)


EXERCISES = [
    Exercise("stop_action", "stop_action", deferred("The stop_reason switch"), [
        Check(deferred("each of the seven stop reasons, and an unknown one"), switch),
    ], notebook="solutions/06_other_stop_reasons.ipynb"),
    Exercise("finish_turn", "finish_turn", deferred("Continuing a paused turn"), [
        Check(deferred("pause_turn: the conversation goes back as it is, the final text is returned"), paused),
        Check(deferred("end_turn is an answer, refusal is not"), not_answers),
        Check(deferred("continuations are limited, and each one appends the paused reply"), limited),
    ], notebook="solutions/06_other_stop_reasons.ipynb"),
]
