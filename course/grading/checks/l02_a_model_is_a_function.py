"""Lesson 02, a model is a function: the API keeps no state, so a follow-up resends the history.

follow_up(client, model, first, second) -> str
  asks `first`, then `second` in the same conversation; returns the text of the second answer.
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...i18n import deferred, tr
from ...scenarios import Scenario, say
from ..exercise import CLIENT, Check, Exercise
from .common import DROPPED, accepted, expect, returned, same_messages, text_of

STATELESS = deferred("sending only the new question: the API remembers nothing, every request carries the whole "
                     "conversation")
NO_REPLY = deferred("leaving out the model's first answer: the history is question, answer, question")

FIRST, SECOND = "Who directed the film Aurora Run?", "When was she born?"


def pronoun_policy(c: Conversation) -> Turn:
    """Answers 'she' only when the earlier question and answer are in the request."""
    if len(c.messages) == 1 and c.prompt == FIRST:
        return say("Aurora Run (2011) was directed by Mara Voss.")
    if any("Mara Voss" in b.get("text", "") for m in c.messages for b in m["content"] if m["role"] == "assistant"):
        return say("Mara Voss was born in 1974.")
    return say("Who do you mean by 'she'? This conversation has no earlier messages about anyone.")


FOLLOW_UP = Scenario("grading_follow_up", "A follow-up question", FIRST, pronoun_policy)
SCENARIOS = [FOLLOW_UP]


def two_requests(ctx) -> None:
    out = ctx.call(CLIENT, MODEL, FIRST, SECOND, scenario=FOLLOW_UP)
    accepted(out)
    returned(out)
    expect(len(out.requests) == 2,
           tr("{count} requests; expected 2 (one per question)").format(count=len(out.requests)))
    sent = out.requests[1]["messages"]
    expect(len(sent) >= 2, tr("the second request sent {count} message(s): only the new question").format(
        count=len(sent)), STATELESS)
    want = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": out.replies[0]["content"]},
            {"role": "user", "content": SECOND}]
    no_reply = not any(m.get("role") == "assistant" for m in sent)
    same_messages(sent, want, tr("the second request is not the first question, its answer exactly as received, and "
                                 "the second question"), named={DROPPED: NO_REPLY if no_reply else ""})


def answer(ctx) -> None:
    out = ctx.call(CLIENT, MODEL, FIRST, SECOND, scenario=FOLLOW_UP)
    accepted(out)
    returned(out)
    final = text_of(out.replies[-1]) if out.replies else ""
    expect(out.value == final, tr("returned {value!r}; expected the second answer's text {final!r}").format(
        value=out.value, final=final))
    sent = out.requests[1]["messages"] if len(out.requests) > 1 else []
    no_reply = sent and not any(m.get("role") == "assistant" for m in sent)
    hint = STATELESS if len(sent) == 1 else NO_REPLY if no_reply else ""
    expect(out.value == "Mara Voss was born in 1974.",
           tr("the model could not tell who 'she' is: {value!r}").format(value=out.value), hint)


EXERCISES = [
    Exercise("follow_up", "follow_up", deferred("A follow-up question to a stateless API"), [
        Check(deferred("the second request carries the first question and its answer"), two_requests),
        Check(deferred("the answer is the second reply's text"), answer),
    ], notebook="solutions/02_a_model_is_a_function.ipynb"),
]
