"""Lesson 11, workflows versus agents: a workflow's calls are fixed by its code (Prop. 7.2).

summarize_then_translate(client, model, text) -> str
  a two-node prompt chain: one call summarises `text`, a second call translates that summary into
  French; no tools, no loop, each call a fresh one-message conversation; returns the translation.

The prompts' wording is the student's own, so each rule states a property of what was sent
(`holds`), judged on a toy model that knows its job by position: whatever its first call gets, it
summarises; whatever its second gets, it translates, into French only when that call names French
(otherwise it asks which language). Its replies name the input they were made from, so a chain that
passes on the wrong text shows.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

from ....api import Conversation, LocalAPI, Turn
from ....client import MODEL
from ....contract.exercise import CLIENT, Outcome
from ....i18n import deferred, tr, tr_plural
from ....messages import text_of
from ....scenarios import Scenario, say
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/11_workflows_versus_agents.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l11_*), named only when a student's function
# does exactly that
NODES = deferred("a prompt chain has a fixed number of nodes: exactly two calls, whatever the "
                 "model says")
CHAIN = deferred("not chaining: the second call works on the first call's output")
FRESH = deferred("carrying a conversation between nodes: each node is one fresh call with its own "
                 "input")
RETURNS_SUMMARY = deferred("returning the summary: the chain's result is the second node's output, "
                           "the translation")
OWN_MODEL = deferred("ignoring the model argument: every call uses the model the caller gives")

TEXTS = ["Aurora Run is a 1998 novel by Henrik Dahl (born 1951). It was adapted into a 2011 film "
         "directed by Mara Voss (born 1974), a Norwegian film director.",
         "The meeting moved to Thursday.\nBring the budget figures.",
         "Les chats dorment seize heures par jour."]


def digest(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()[:8]


# how a prompt names French, in either edition's words
FRENCH = ("french", "français", "francais", "フランス")
# how a prompt asks for a summary, in the student's own words in either edition (summarise,
# condense, the gist, in one sentence, 要約, まとめ, 一文で)
SUMMARY = ("summar", "condense", "gist", "sentence", "brief", "要約", "まとめ", "一文", "要点")


def names_french(data: str) -> bool:
    return any(word in data.lower() for word in FRENCH)


def names_summary(data: str) -> bool:
    return any(word in data.lower() for word in SUMMARY)


class ByPosition:
    """A toy model that summarises whatever its first call gets and translates whatever its second
    gets, into French only when that call names French (else it asks which language); `split` gives
    the translation in two text blocks."""

    def __init__(self, split: bool = False):
        self.calls = 0
        self.split = split

    def __call__(self, c: Conversation) -> Turn:
        self.calls += 1
        data = text_of(c.last)
        if self.calls == 1:
            return say(f"One sentence [{digest(data)}]: a short summary of {len(data)} characters.")
        if self.calls == 2 and names_french(data):
            words = (f"Une phrase [{digest(data)}] :", f" la traduction de {len(data)} caractères.")
            return say(*words) if self.split else say("".join(words))
        if self.calls == 2:
            return say(f"Into which language should I translate [{digest(data)}]?")
        return say("There is nothing more to do.")


@dataclass
class Chain(Scenario):
    """A scenario whose every run starts a fresh ByPosition model."""

    split: bool = False

    def api(self, **options) -> LocalAPI:
        return LocalAPI(ByPosition(self.split), **{**self.options, **options})


def chain_cases() -> list[Case]:
    made = []
    # the last case's model translates in two text blocks: the function returns them joined
    for k, (text, split) in enumerate([*((text, False) for text in TEXTS), (TEXTS[0], True)]):
        model = MODEL if k != 1 else "claude-haiku-4-5"
        title = (tr("a model that summarises its first call's input and translates its second's in "
                    "two text blocks")
                 if split else tr("a model that summarises its first call's input and translates "
                                  "its second's"))
        sc = Chain("grading_by_position", title, text, ByPosition(split), split=split)
        made.append(Case(tr("{title}; model={model!r}, text={text!r}").format(
            title=sc.title, model=model, text=text[:40] + ("…" if len(text) > 40 else "")),
                         (CLIENT, model, text), {},
            sc))
    return made


def user_text(body: dict) -> str:
    return "".join(text_of(m) for m in body.get("messages", []) if m.get("role") == "user")


def two_fresh_calls(out: Outcome, case: Case) -> str:
    model = case.args[1]
    if len(out.requests) != 2:
        return tr_plural("your function made {n} call; a two-node chain makes exactly 2",
                         "your function made {n} calls; a two-node chain makes exactly 2",
                         len(out.requests)).format(
            n=len(out.requests))
    for k, (body, status) in enumerate(zip(out.requests, out.statuses, strict=True), 1):
        if status != 200:
            return tr("call {k} was rejected by the API with {status}: {message}").format(
                k=k, status=status,
                message=((out.replies[k - 1] or {}).get("error") or {}).get("message", ""))
        messages = body.get("messages", [])
        if len(messages) != 1 or messages[0].get("role") != "user":
            return tr("call {k} sent {n} messages; a node is one fresh call with a single user "
                      "message").format(
                k=k, n=len(messages))
        if body.get("tools"):
            return tr("call {k} offered tools; a workflow node has none").format(k=k)
        if body.get("model") != model:
            return tr("call {k} used the model {got!r}; the caller gave {want!r}").format(
                k=k, got=body.get("model"), want=model)
    return ""


def summarises_text(out: Outcome, case: Case) -> str:
    text = case.args[2]
    if not out.requests or text not in user_text(out.requests[0]):
        return tr("the first call's message does not carry the text to summarise")
    if not names_summary(user_text(out.requests[0])):
        return tr("the first call's message does not ask for a summary: it must name one")
    return ""


def translates_summary(out: Outcome, case: Case) -> str:
    if len(out.requests) < 2 or out.statuses[0] != 200:
        return tr_plural("your function made {n} call; the second call must carry the first's "
                         "output",
                         "your function made {n} calls; the second call must carry the first's "
                         "output",
                         len(out.requests)).format(n=len(out.requests))
    summary = text_of(out.replies[0])
    if summary not in user_text(out.requests[1]):
        return tr(
            "the second call's message does not carry the first call's output {summary!r}"
        ).format(summary=summary)
    if not names_french(user_text(out.requests[1])):
        return tr("the second call's message does not name French: it must ask for a French "
                  "translation")
    return ""


def returns_translation(out: Outcome, case: Case) -> str:
    want = text_of(out.replies[1]) if len(out.replies) > 1 and out.statuses[1] == 200 else None
    if want is None or out.value != want:
        return tr("your function returned {got!r}; the second call's text is {want!r}").format(
            got=out.value, want=want)
    return ""


EXERCISES = [
    exercise("summarize_then_translate", "summarize_then_translate",
             deferred("A two-node prompt chain"), NOTEBOOK, [
        Rule(deferred("exactly two calls, each a fresh conversation of one user message, no tools, "
                      "the model given"),
             chain_cases, ("requests", "value"), holds=two_fresh_calls),
        Rule(
            deferred("the first call asks for a summary of the text: its message carries the text"),
            chain_cases, ("requests", "value"), holds=summarises_text),
        Rule(deferred("the second call asks for a French translation of the summary: its message "
                      "carries the first call's output"), chain_cases, ("requests", "value"),
             holds=translates_summary),
        Rule(deferred("the translation is returned: the second call's text"), chain_cases,
             ("requests", "value"),
            holds=returns_translation),
    ]),
]
