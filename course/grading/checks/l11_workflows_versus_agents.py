"""Lesson 11, workflows versus agents: a workflow's calls are fixed by its code (Prop. 7.2).

summarize_then_translate(client, model, text) -> str
  a two-node prompt chain: one call summarises `text`, a second call translates that summary into
  French; no tools, no loop, each call a fresh one-message conversation; returns the translation.
"""
from __future__ import annotations

import hashlib

from ...api import Conversation, Turn
from ...client import MODEL
from ...i18n import deferred, tr
from ...scenarios import Scenario, say
from ..exercise import CLIENT, Check, Exercise
from .common import accepted, expect, returned, text_of

NODES = deferred("a prompt chain has a fixed number of nodes: exactly two calls, whatever the model says")
CHAIN = deferred("not chaining: the second call works on the first call's output")
FRESH = deferred("carrying a conversation between nodes: each node is one fresh call with its own input")
TOOLS = deferred("offering tools in a workflow node: the code, not the model, decides the path")

TEXT = ("Aurora Run is a 1998 novel by Henrik Dahl (born 1951). It was adapted into a 2011 film directed by "
        "Mara Voss (born 1974), a Norwegian film director.")


def echo_policy(c: Conversation) -> Turn:
    """A stand-in model whose reply names the exact input it was given."""
    digest = hashlib.sha256(c.prompt.encode()).hexdigest()[:8]
    return say(f"Output {digest} for {len(c.prompt)} characters of input.")


ECHO = Scenario("grading_echo", "A model whose replies name their input", TEXT, echo_policy)
SCENARIOS = [ECHO]


def user_text(body: dict) -> str:
    return "".join(text_of(m) for m in body["messages"] if m.get("role") == "user")


def chain(ctx) -> None:
    out = ctx.call(CLIENT, MODEL, TEXT, scenario=ECHO)
    accepted(out)
    returned(out)
    expect(len(out.requests) == 2,
           tr("{n} calls; a two-node chain makes exactly 2").format(n=len(out.requests)), NODES)
    expect(not any(r.get("tools") for r in out.requests), tr("a request offered tools"), TOOLS)
    expect(all(len(r["messages"]) == 1 for r in out.requests), tr("a node sent more than its own one message"),
           FRESH)
    expect(TEXT in user_text(out.requests[0]), tr("the first call does not carry the text to summarise"), CHAIN)
    expect(text_of(out.replies[0]) in user_text(out.requests[1]),
           tr("the second call does not carry the first call's output"), CHAIN)
    expect("summar" in user_text(out.requests[0]).lower(), tr("the first call does not ask for a summary"))
    expect("french" in user_text(out.requests[1]).lower(), tr("the second call does not ask for French"))
    expect(out.value == text_of(out.replies[1]),
           tr("returned {got!r}; expected the second call's text").format(got=out.value))


EXERCISES = [
    Exercise("summarize_then_translate", "summarize_then_translate", deferred("A two-node prompt chain"), [
        Check(deferred("two fresh calls, the second on the first's output"), chain),
    ], notebook="solutions/11_workflows_versus_agents.ipynb"),
]
