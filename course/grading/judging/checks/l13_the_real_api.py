"""Lesson 13, the real API: choose it only when asked and a key exists, and stream a reply.

choose_backend(env) -> "live" | "local"
  "live" only when env["COURSE_LIVE"] == "1" and env holds a non-empty ANTHROPIC_API_KEY; never
  prints the key.
stream_reply(client, model, prompt) -> str
  streams the answer with client.messages.stream, printing each piece of text as it arrives; returns
  the text.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/13_...) on
generated cases. The environment is a mapping passed as the argument (the grader's own environment
plays no part). When the text is printed is seen without timing: a stream that breaks off after its
first piece leaves that piece printed by a function that prints as it arrives, and nothing by one
that prints at the end.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ....api import Turn
from ....client import MODEL
from ....contract.exercise import CLIENT
from ....i18n import deferred, tr
from ....scenarios import Scenario
from .. import reference
from ..cases import ANSWERS, LONG, Step, describe, no_tools_free, scenario
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/13_the_real_api.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l13_*), named only when a student's function
# does exactly that
NOT_ASKED = deferred("going live just because a key exists: the learner asks for it with "
                     "COURSE_LIVE=1")
NO_KEY = deferred("going live without a key: with no ANTHROPIC_API_KEY, fall back to the local API")
EMPTY_KEY = deferred("counting an empty ANTHROPIC_API_KEY as a key: it must be set and not empty")
ANY_OPT_IN = deferred("opting in on any COURSE_LIVE value: only COURSE_LIVE=1 asks for the live "
                      "API")
OS_ENVIRON = deferred("reading os.environ instead of the env argument")
LEAK = deferred("printing the key: it must never appear in output or notebooks")
KEY_REMOVED = deferred("removing the key from env: read it and leave the mapping as it is")
NOT_STREAMED = deferred("calling messages.create without streaming: use client.messages.stream")
NOT_PRINTED = deferred("not printing the pieces as they arrive: streaming is for showing text "
                       "early")
PRINTED_AT_END = deferred("printing the text once the stream is complete: print each piece as it "
                          "arrives")
PIECE_PER_LINE = deferred("printing each piece on a line of its own: print(piece, end=\"\", "
                          "flush=True)")
FIRST_BLOCK = deferred("returning the first block's text: a reply may start with a thinking block; "
                       "join the text pieces")

# --- choose_backend
# -------------------------------------------------------------------------------------

# unique: the check looks for it in the output
KEY = "placeholder-key-for-the-check-0123456789-abcdefghij"
# characters of the key that, printed in a row, count as printing it (a short masked prefix does
# not)
PIECE = 16
# COURSE_LIVE: missing, the opt-in, other values
OPT_INS = (None, "1", "0", "", "true", " 1", "yes")
KEYS = (None, "", KEY)  # ANTHROPIC_API_KEY: missing, empty, set


def environments() -> list[dict]:
    """Every COURSE_LIVE with every ANTHROPIC_API_KEY (None: missing), alone and beside an unrelated
    variable."""
    made = []
    for live in OPT_INS:
        for key in KEYS:
            env = {k: v for k,
                   v in (("COURSE_LIVE", live), ("ANTHROPIC_API_KEY", key)) if v is not None}
            made += [env, {"PATH": "/usr/bin", **env}]
    return made


def env_case(env: dict) -> Case:
    shown = {k: ("<the key>" if v == KEY else v) for k, v in env.items()}
    return Case(f"choose_backend({shown})", (env,))


def backend_cases(kind: str):
    """The environments of one kind: those the reference sends "live", those it keeps local although
    a key is set ("no opt-in"), those without a key ("no key"), or every one with a key
    ("keyed")."""
    def made() -> list[Case]:
        choose = reference.function(NOTEBOOK, "choose_backend")
        kinds = {"live": lambda env, keyed: choose(dict(env)) == "live",
                 "no opt-in": lambda env, keyed: keyed and choose(dict(env)) == "local",
                 "no key": lambda env, keyed: not keyed,
                 "keyed": lambda env, keyed: keyed}
        return [env_case(env) for env in environments()
                if kinds[kind](env, bool(env.get("ANTHROPIC_API_KEY")))]
    return made


def no_key_printed(out, case: Case) -> str:
    """The key, or PIECE characters of it in a row, is nowhere in what the call printed."""
    if any(KEY[k:k + PIECE] in out.stdout for k in range(len(KEY) - PIECE + 1)):
        return tr("the key was printed: {printed}").format(
            printed=out.stdout.replace(KEY, "<the key>")[:120])
    return ""


# --- stream_reply
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TwoTexts(Step):
    """An answer in two text blocks: the text is both, joined."""

    def turn(self) -> Turn:
        return Turn([{"type": "text", "text": "Mara Voss was born "},
                     {"type": "text", "text": "in 1974."}])

    def words(self) -> str:
        return tr("answers in two text blocks")


@dataclass
class BreaksOff(Scenario):
    """A stream that ends with an error event right after its first piece of text."""

    def api(self, **options):
        return super().api(**options).inject("stream_error")


REPLIES = (ANSWERS, Step(text="Mara Voss was born in 1974.", thinking=True), TwoTexts(),
           Step(text=LONG))


def stream_case(step: Step, broken: bool = False) -> Case:
    sc = scenario((step,))
    if broken:
        sc = BreaksOff(**{f.name: getattr(sc, f.name) for f in dataclasses.fields(sc)})
    return Case(lambda: describe((step,)) + (tr("; the stream breaks off after its first piece")
                                             if broken else ""),
                (CLIENT, MODEL, sc.prompt), {}, sc)


def reply_cases() -> list[Case]:
    return [stream_case(step) for step in REPLIES]


def printed_cases() -> list[Case]:
    """Every reply, and two that break off: what arrived before the error is on the screen."""
    return reply_cases() + [stream_case(Step(text=LONG), broken=True),
                            stream_case(Step(text="Mara Voss was born in 1974.", thinking=True),
                                        broken=True)]


def ending_newline(theirs, case: Case) -> list:
    """The final print() is the reference's own: the printed text without it is as right."""
    return [dataclasses.replace(theirs, stdout=theirs.stdout.removesuffix("\n"))]


EXERCISES = [
    exercise("choose_backend", "choose_backend", deferred("Live only when asked and a key exists"),
             NOTEBOOK, [
        Rule(deferred("live when COURSE_LIVE is \"1\" and ANTHROPIC_API_KEY is set and not empty"),
             backend_cases("live"), ("value", "after"), points=0.5),
        Rule(deferred("local without the opt-in: COURSE_LIVE missing or any other value"),
             backend_cases("no opt-in"), ("value", "after"), points=0.5),
        Rule(deferred("local without a key: ANTHROPIC_API_KEY missing or empty"),
             backend_cases("no key"), ("value", "after"), points=0.5),
        Rule(deferred("the key is never printed"), backend_cases("keyed"), ("stdout",),
             holds=no_key_printed, points=0.5),
    ]),
    exercise("stream_reply", "stream_reply", deferred("Streaming a reply"), NOTEBOOK, [
        Rule(deferred("one streamed request: the prompt, max_tokens=1024"), reply_cases,
             ("requests",), loose=no_tools_free, points=0.5),
        Rule(deferred("each piece of text is printed as it arrives"), printed_cases, ("stdout",),
             readings=ending_newline),
        Rule(deferred("the whole text is returned"), reply_cases, points=0.5),
    ]),
]
