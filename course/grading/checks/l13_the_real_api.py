"""Lesson 13, the real API: choose it only when asked and a key exists, and stream a reply.

choose_backend(env) -> "live" | "local"
  "live" only when env["COURSE_LIVE"] == "1" and env holds a non-empty ANTHROPIC_API_KEY; never prints the key.
stream_reply(client, model, prompt) -> str
  streams the answer with client.messages.stream, printing each piece of text as it arrives; returns the text.
"""
from __future__ import annotations

from ...client import MODEL
from ...i18n import deferred, tr
from ..exercise import CLIENT, Check, Exercise
from .common import accepted, expect, returned, text_of
from .l03_the_first_loop import LONG_ANSWER

NOT_ASKED = deferred("going live just because a key exists: the learner asks for it with COURSE_LIVE=1")
NO_KEY = deferred("going live without a key: fall back to the local API")
LEAK = deferred("printing the key: it must never appear in output or notebooks")
NOT_STREAMED = deferred("calling messages.create without streaming: use client.messages.stream")
NOT_PRINTED = deferred("not printing the pieces as they arrive: streaming is for showing text early")

KEY = "placeholder-key-for-the-check-0123456789"  # any unique value: the check looks for it in the output
ENVS = [  # (environment, backend, the mistake that gets it wrong)
    ({}, "local", NO_KEY),
    ({"ANTHROPIC_API_KEY": KEY}, "local", NOT_ASKED),
    ({"COURSE_LIVE": "1"}, "local", NO_KEY),
    ({"COURSE_LIVE": "1", "ANTHROPIC_API_KEY": ""}, "local", NO_KEY),
    ({"COURSE_LIVE": "0", "ANTHROPIC_API_KEY": KEY}, "local", NOT_ASKED),
    ({"COURSE_LIVE": "1", "ANTHROPIC_API_KEY": KEY}, "live", ""),  # staying local here has no known cause
]


def backends(ctx) -> None:
    for env, want, mistake in ENVS:
        out = ctx.call(env)
        returned(out)
        expect(KEY not in out.stdout, tr("the key was printed"), LEAK)
        masked = {k: ("<key>" if k == "ANTHROPIC_API_KEY" and v else v) for k, v in env.items()}
        expect(out.value == want, tr("choose_backend({env}) returned {got!r}, expected {want!r}").format(
            env=masked, got=out.value, want=want), tr(mistake) if mistake else "")


def streamed(ctx) -> None:
    out = ctx.call(CLIENT, MODEL, LONG_ANSWER.prompt, scenario=LONG_ANSWER)
    accepted(out)
    returned(out)
    expect(len(out.requests) == 1 and out.requests[0].get("stream") is True,
           tr("the request did not ask for a stream"), NOT_STREAMED)
    text = text_of(out.replies[0])
    expect(out.value == text, tr("returned {got!r}...; expected the streamed text").format(got=str(out.value)[:60]))
    expect(out.stdout.strip() == text.strip(), tr("the printed output is not the streamed text"), NOT_PRINTED)


EXERCISES = [
    Exercise("choose_backend", "choose_backend", deferred("Live only when asked and a key exists"), [
        Check(deferred("six environments, the key never printed"), backends),
    ], notebook="solutions/13_the_real_api.ipynb"),
    Exercise("stream_reply", "stream_reply", deferred("Streaming a reply"), [
        Check(deferred("the request streams, the text is printed as it arrives and returned"), streamed),
    ], notebook="solutions/13_the_real_api.ipynb"),
]
