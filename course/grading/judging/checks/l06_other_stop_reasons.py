"""Lesson 06, the other stop reasons: a switch over all seven, and pause_turn continued on the wire.

stop_action(stop_reason) -> "run_tools" | "answer" | "continue" | "stop"
  what the loop does next; any other value raises ValueError.
finish_turn(client, model, prompt, *, max_continuations=3) -> str | None
  one question, no tools: while the response is pause_turn (at most max_continuations times), send
  the conversation back as it is; the text of an end_turn response, otherwise None.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/06_...) on
generated cases: one rule per stop reason, so a switch right for six of them earns six of the
points.
"""
from __future__ import annotations

from dataclasses import dataclass

from ....client import MODEL
from ....contract.exercise import CLIENT
from ....i18n import deferred, tr
from ..cases import (
    ANSWERS,
    LONG,
    TWO_TEXTS,
    Step,
    describe,
    no_tools_free,
    pick,
    scenario,
    scripts,
    settings,
)
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/06_other_stop_reasons.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l06_*), named only when a student's function
# does exactly that
ALL_BUT_TOOL_USE = deferred("treating every stop_reason but tool_use as an answer: only end_turn "
                            "and stop_sequence are")
STOP_SEQUENCE_STOPS = deferred("treating stop_sequence as no answer: the reply stopped at your "
                               "stop sequence, its text is the answer")
PAUSE_ANSWERS = deferred("treating pause_turn as an answer: the turn is only paused, send it back")
WINDOW_FORGOTTEN = deferred("leaving model_context_window_exceeded out of the switch: it ends the "
                            "turn without an answer, like max_tokens")
UNKNOWN_STOPS = deferred("answering an unknown stop_reason with a default: raise ValueError, so a "
                         "new value is noticed")
PAUSE_FINAL = deferred("treating pause_turn as the end: the turn is not finished, send it back")
SEND_AS_IS = deferred("adding a message before sending a paused turn back: send the conversation "
                      "as it is")
DROPS_PAUSED = deferred("leaving paused replies out of the continuation: append each one, keep the "
                        "earlier ones")
NO_LIMIT = deferred("continuing paused turns without a limit: at most max_continuations times")
ONE_SHORT = deferred("one continuation short: max_continuations counts the calls after the first "
                     "one")
CUT_ANSWERS = deferred("returning the text of a reply cut at max_tokens: it is not an answer")

# --- stop_action
# ----------------------------------------------------------------------------------------

SWITCH = {"tool_use": "run_tools", "end_turn": "answer", "stop_sequence": "answer",
          "pause_turn": "continue",
          "max_tokens": "stop", "refusal": "stop", "model_context_window_exceeded": "stop"}
# a new value, other spellings, nothing
UNKNOWN = ("thinking_too_hard", "TOOL_USE", "end_turn ", "", None)


def reason_cases(reason: str):
    return lambda: [Case(f"stop_action({reason!r})", (reason,))]


def unknown_cases() -> list[Case]:
    return [Case(f"stop_action({reason!r})", (reason,)) for reason in UNKNOWN]


# --- finish_turn
# ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cut(Step):
    """An answer longer than finish_turn's max_tokens: the API cuts it (stop_reason max_tokens)."""

    text: str | None = LONG * 2

    def words(self) -> str:
        return tr("answers at length (cut at max_tokens)")


PAUSES = (Step(text="Searching the release notes...", stop="pause_turn"),
          Step(text="Still searching...", thinking=True, stop="pause_turn"))
ANSWER_THINKING = Step(text="1974", thinking=True)
REFUSES = Step(stop="refusal")
ENDS = (ANSWERS, ANSWER_THINKING, REFUSES, Cut())


def turn_case(script: tuple[Step, ...], **options) -> Case:
    """A Case for finish_turn: the model answers the k-th call with the script's k-th step."""
    sc = scenario(script)
    return Case(lambda: describe(script) + settings(options), (CLIENT, MODEL, sc.prompt), options,
                sc)


def first_cases() -> list[Case]:
    """One response ends the turn: the one request finish_turn sends."""
    return [turn_case((end,)) for end in ENDS]


def paused_cases() -> list[Case]:
    """1 to 3 pauses (thinking or not), then an ending, within the limit."""
    made = [s for s in scripts(list(PAUSES), 4, end=ENDS) if len(s) > 1]
    return [turn_case(s) for s in pick(made, 6, keep=3, seed=6)]


def limit_cases() -> list[Case]:
    """max_continuations 0, 1 and 3 (the default), the turn paused one time fewer, exactly as often,
    or once more."""
    made = []
    for limit in (0, 1, 3):
        for pauses in (limit - 1, limit, limit + 1):
            if pauses >= 0:
                script = (PAUSES[0],) * pauses + (ANSWERS,)
                made.append(turn_case(script) if limit == 3
                            else turn_case(script, max_continuations=limit))
    return made


def answer_cases() -> list[Case]:
    """An end_turn answer, thinking first or not, after no pause or two; an answer in two text
    blocks."""
    return [turn_case((PAUSES[1],) * n + (end,)) for n in (0, 2)
            for end in (ANSWERS, ANSWER_THINKING)] + \
        [turn_case((PAUSES[0], TWO_TEXTS))]


def no_answer_cases() -> list[Case]:
    """A refusal or a reply cut at max_tokens after no pause or one, and a turn paused past the
    limit."""
    return [turn_case((PAUSES[0],) * n + (end,)) for n in (0, 1) for end in (REFUSES, Cut())] + \
        [turn_case((PAUSES[0],) * 4 + (ANSWERS,)),
         turn_case((PAUSES[1], ANSWERS), max_continuations=0)]


EXERCISES = [
    exercise("stop_action", "stop_action", deferred("The stop_reason switch"), NOTEBOOK, [
        Rule(deferred("tool_use: run_tools"), reason_cases("tool_use"), points=0.25),
        Rule(deferred("end_turn: answer"), reason_cases("end_turn"), points=0.25),
        Rule(deferred("stop_sequence: answer"), reason_cases("stop_sequence"), points=0.25),
        Rule(deferred("pause_turn: continue"), reason_cases("pause_turn"), points=0.25),
        Rule(deferred("max_tokens: stop"), reason_cases("max_tokens"), points=0.25),
        Rule(deferred("refusal: stop"), reason_cases("refusal"), points=0.25),
        Rule(deferred("model_context_window_exceeded: stop"),
             reason_cases("model_context_window_exceeded"), points=0.25),
        Rule(deferred("any other value raises ValueError"), unknown_cases, points=0.25),
    ]),
    exercise("finish_turn", "finish_turn", deferred("Continuing a paused turn"), NOTEBOOK, [
        Rule(
            deferred("one question with no tools: the prompt as the only message, max_tokens=1024"),
            first_cases, ("requests",), loose=no_tools_free, points=0.5),
        Rule(deferred("while the response is pause_turn, the assistant message is appended and the "
                      "conversation sent again, nothing else added"), paused_cases, ("requests",),
            loose=no_tools_free),
        Rule(deferred("at most max_continuations continuations"), limit_cases,
             ("requests", "value"),
            loose=no_tools_free),
        Rule(deferred("the text of the end_turn response that ends the turn is returned"),
             answer_cases,
            points=0.5),
        Rule(deferred("otherwise None: a refusal, a reply cut at max_tokens, a turn still paused"),
             no_answer_cases,
            points=0.5),
    ]),
]
