"""Lesson 03, the first loop: `agent_loop`, graded on the requests it sent, the tools it ran and
what it returned.

agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024) -> (answer,
messages)

Each rule is one sentence of the exercise's text, judged against the reference (solutions/03_...) on
generated toy models: every stop reason (end_turn, tool_use, max_tokens cutting text or a tool_use,
refusal, pause_turn), 0 to 3 calls in one response, a tool that raises, thinking blocks (empty, as
5.x models send them), caps 0 to 3.
"""
from __future__ import annotations

from dataclasses import replace

from ....client import MODELS
from ....i18n import deferred, tr
from ..cases import (
    ANSWERS,
    ASKS,
    LONG,
    TWO_TEXTS,
    Step,
    loop_case,
    pick,
    scripts,
    signatures_free,
    with_model,
)
from ..oracle import Case, Rule, canonical, difference, equal, exercise, shown

NOTEBOOK = "solutions/03_the_first_loop.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l03_*), named only when a student's function
# does exactly that
TEXT_LOOKS_FINAL = deferred("ending the loop because the response starts with text: decide by "
                            "stop_reason; a tool_use response can start with text")
NO_ASSISTANT = deferred("tool_results that follow no assistant tool_use: keep the message that "
                        "asked, right before them")
ONLY_ONE_RESULT = deferred("running and answering only one of a response's tool_uses: run every "
                           "one, in order, and answer each")
ONLY_LAST_RESULT = deferred("answering only the last tool_use: each pass of the loop overwrites "
                            "the result; collect every result in one list")
ONE_MESSAGE_EACH = deferred("returning parallel results one message each: all results go in one "
                            "user message")
TEXT_BEFORE_RESULTS = deferred("putting text before the tool_result blocks: results come first")
WRONG_IDS = deferred("wrong tool_use ids: each tool_result carries the id of the tool_use it "
                     "answers")
TOOLS_BEFORE_STOP_REASON = deferred("running the tool_use blocks before reading stop_reason: a "
                                    "tool_use cut at max_tokens is not run")
NO_CAP = deferred("no turn cap: a model that keeps asking for tools is never stopped by max_turns")
OFF_BY_ONE = deferred("max_turns model calls instead of max_turns + 1: max_turns counts tool-use "
                      "turns, and the call after the last allowed turn still happens")
RAN_LAST_TOOLS = deferred("running the tools of the response after the last allowed turn: at the "
                          "cap they are not run")
ANSWER_WITHOUT_END_TURN = deferred("returning text when the run did not end with end_turn: a "
                                   "capped, cut or refused run has no answer (None)")
STOP_NOT_TOOL_USE_IS_ANSWER = deferred("treating every stop_reason but tool_use as finished: only "
                                       "end_turn gives an answer; a reply cut at max_tokens or "
                                       "refused gives None, a paused one is continued")
TOOL_EXCEPTION = deferred("a tool exception crashing the loop: it must become an is_error "
                          "tool_result")
DROPS_HISTORY = deferred("sending only the prompt and the latest turn: each request carries the "
                         "whole history")
REORDERS_HISTORY = deferred("putting the newest turn before the older ones: the history is "
                            "appended in order")
DROPS_THINKING = deferred("rebuilding the assistant message without its thinking blocks: send the "
                          "reply back exactly as received, empty thinking blocks included")
# the exercise's one rule beyond lesson 03's loop (which never checks its cap): bad input is refused
BAD_CAP = deferred("a max_turns below 0 is bad input: ValueError before any call")
FIXED_MAX_TOKENS = deferred("sending a fixed max_tokens: every request sends the max_tokens "
                            "argument")

# --- the toy models
# -----------------------------------------------------------------------------------

CALLS = [ASKS, Step(("search", "search")),
         Step(("search", "search", "search"), text="Three pages at once."),
         # 1 to 3 calls in one response, text or thinking before them
         Step(("search",), thinking=True)]
RAISING = [Step(("broken",)), Step(("search", "broken")),
           Step(("broken", "search", "broken"), thinking=True)]
# reads as final, but stop_reason is tool_use
LOOKS_FINAL = Step(("search",), text="Done! The answer is 1951.")
CUT_TEXT = Step(text=LONG)  # with max_tokens=20: the text is cut
CUT_CALL = Step(("search",), text="Searching.")  # with max_tokens=12: the tool_use is cut
THOUGHT_ANSWER = Step(text="1974", thinking=True)


def cases(made: list[tuple[tuple[Step, ...], dict]]) -> list[Case]:
    return [loop_case(script, **options) for script, options in made]


def sent_cases() -> list[Case]:
    return [with_model(loop_case((ASKS, ANSWERS), max_tokens=300), MODELS["sonnet"]),
            with_model(loop_case((ANSWERS,)), MODELS["opus"]),
            loop_case((Step(("search", "search")), ANSWERS), max_tokens=2000, max_turns=4)]


def answer_cases() -> list[Case]:
    return cases([((ANSWERS,), {}), ((THOUGHT_ANSWER,), {}), ((ASKS, ANSWERS), {}),
                  ((Step(("search",), text="Let me check."), THOUGHT_ANSWER), {}),
                  ((ASKS, TWO_TEXTS), {})])


def looks_final_cases() -> list[Case]:
    return cases([((LOOKS_FINAL, ANSWERS), {}), ((Step(text="1974", stop="refusal"),), {})])


def parallel_cases() -> list[Case]:
    """Every script of one or two tool-use responses drawn from CALLS, then an answer: a fixed
    sample."""
    return [loop_case(s) for s in pick([s for s in scripts(CALLS, 3) if len(s) > 1], 5, keep=4,
                                       seed=3)]


def raising_cases() -> list[Case]:
    return [loop_case((step, ANSWERS)) for step in RAISING]


def cut_cases() -> list[Case]:
    return cases([((Step(text=LONG, thinking=True),), {"max_tokens": 5}),
                  ((CUT_TEXT,), {"max_tokens": 20}),
                  ((CUT_CALL,), {"max_tokens": 12}), ((ASKS, CUT_TEXT), {"max_tokens": 20})])


def other_stop_cases() -> list[Case]:
    """A refusal, at once and after tool turns."""
    refuses = Step(stop="refusal")
    return cases([((refuses,), {}), ((ASKS, refuses), {}),
                  ((Step(("search", "search"), thinking=True), refuses), {})])


PAUSES = Step(stop="pause_turn", text="Searching the encyclopedia.")


def pause_cases() -> list[Case]:
    """A paused turn: at once, after a tool turn, twice in a row, after a thinking block, and at the
    cap (max_turns 0 and 1), where the run ends in pause_turn with no answer on either reading, and
    before a tool turn the cap then stops (a paused turn counts)."""
    return cases([((PAUSES, ANSWERS), {}), ((ASKS, PAUSES, ANSWERS), {}),
                  ((PAUSES, PAUSES, ANSWERS), {}),
                  ((Step(stop="pause_turn", thinking=True), THOUGHT_ANSWER), {}),
                  ((PAUSES,), {"max_turns": 0}),
                  ((ASKS, PAUSES), {"max_turns": 1}), ((PAUSES, ASKS, ANSWERS), {"max_turns": 1})])


def cap_cases() -> list[Case]:
    """max_turns = 0 to 3, the model asking for tools exactly T times (it finishes), T + 1 times
    (capped) or T + 2 times (a cap one too high runs one more turn, which no cap would tell apart);
    and the default cap, 10, with a model that asks 11 times."""
    made = []
    for cap in range(4):
        for asks in (cap, cap + 1, cap + 2):
            made.append(loop_case(tuple(CALLS[k % 2] for k in range(asks)) + (ANSWERS,),
                                  max_turns=cap))
    return made + [loop_case((ASKS,) * 11 + (ANSWERS,))]


def history_cases() -> list[Case]:
    return cases([((ASKS, Step(("search", "search")), ANSWERS), {}),
                  ((LOOKS_FINAL, ASKS, ANSWERS), {"max_turns": 2})])


def none_exit_cases() -> list[Case]:
    return cases([((ASKS, ASKS), {"max_turns": 1}), ((ASKS, CUT_TEXT), {"max_tokens": 20}),
                  ((Step(("search", "broken")), Step(stop="refusal")), {})])


def bad_cap_cases() -> list[Case]:
    """A negative max_turns, with a model that answers at once and one that asks for tools first:
    the loop of lesson 03 calls anyway (its cap is never reached); the exercise asks for a
    ValueError before any call."""
    return cases([((ANSWERS,), {"max_turns": -1}), ((ASKS, ANSWERS), {"max_turns": -2})])


def thinking_cases() -> list[Case]:
    return cases([((Step(("search",), thinking=True), ANSWERS), {}),
                  ((Step(("search", "broken"), thinking=True),
                    Step(("search",), text="More.", thinking=True), THOUGHT_ANSWER), {})])


# --- what is compared
# ---------------------------------------------------------------------------------

ASPECTS = ("requests", "tool_calls", "value")
FAILED = "the encyclopedia is offline"  # what the broken tool raises


def says_what_failed(x):
    """A `loose`: an is_error result's wording is the student's own, as long as it carries the
    error; so a later thinking block's signature (which signs the history before it) is left to the
    API, which rejects a wrong one."""
    def error_carried(x):
        if isinstance(x, dict):
            if x.get("type") == "tool_result" and x.get("is_error"):
                return {**x,
                        "content": FAILED if FAILED in str(x.get("content")) else x.get("content")}
            return {k: error_carried(v) for k, v in x.items()}
        if isinstance(x, list):
            return [error_carried(v) for v in x]
        return x

    return error_carried(signatures_free(x))


def ending_appended(ref, case: Case) -> list:
    """The other reading at a None exit: the returned messages end with the response that ended the
    loop."""
    value = ref.value
    if not (isinstance(value, list) and len(value) == 2 and value[0] is None and ref.replies):
        return []
    last = {"role": "assistant", "content": ref.replies[-1].get("content")}
    return [replace(ref, value=[None, [*value[1], last]])]


# what each sentence is about: a rule compares that part of the outcome alone, so one mistake fails
# only the sentences it breaks (a loop that returns the wrong messages still sends the model it is
# given)

def sent_fields(requests):
    """Each request's model, tools and max_tokens."""
    return [{k: r.get(k) for k in ("model", "tools", "max_tokens")} if isinstance(r, dict) else r
            for r in requests]


def calls(requests):
    """How many requests were sent, and nothing of what they hold."""
    return [{} for _ in requests]


def results_messages(requests):
    """The message each request after the first ends with: the previous response's results."""
    return [says_what_failed(r["messages"][-1]) if k and isinstance(r, dict) and r.get("messages")
            else {}
            for k, r in enumerate(requests)]


def answer(value):
    """The answer of an (answer, messages) pair."""
    return value[0] if isinstance(value, list) and len(value) == 2 else value


def answer_of_pair(value):
    """The answer of an (answer, messages) pair, told apart from a value that is no pair (a None
    returned)."""
    return {"answer": value[0]} if isinstance(value, list) and len(value) == 2 else value


def as_received(out, k: int) -> dict:
    """Response k (from 0) as an assistant message, exactly as the API sent it."""
    return canonical({"role": "assistant", "content": (out.replies[k] or {}).get("content")})


def returns_what_it_sent(out, case: Case) -> str:
    """A `holds`: the returned messages are the last request's messages, plus the final assistant
    message when there is an answer (with none, the response that ended the loop may be appended
    too)."""
    value = canonical(out.value)
    if not out.requests or not (isinstance(value, list) and len(value) == 2):
        return "" if not out.requests else tr("the return value: yours {mine}, not an (answer, "
                                              "messages) pair").format(
            mine=shown(value))
    sent = canonical(out.requests[-1].get("messages"))
    ended = sent + [as_received(out, len(out.requests) - 1)]
    right = [ended] if value[0] is not None else [sent, ended]
    if any(equal(value[1], messages) for messages in right):
        return ""
    # no reading matched
    path, mine, theirs = difference(value[1], right[0], "[1]") or ("[1]", value[1], right[0])
    return tr("the returned messages at {path}: yours {mine}, the last request's {theirs}").format(
        path=path, mine=shown(mine), theirs=shown(theirs)) if value[0] is None else tr(
        "the returned messages at {path}: yours {mine}, the last request's plus the final reply: "
        "{theirs}").format(
        path=path, mine=shown(mine), theirs=shown(theirs))


def grows_by_one_turn(out, case: Case) -> str:
    """A `holds`: each request's messages are the previous request's, the reply to it exactly as
    received, and one user message."""
    for k in range(1, len(out.requests)):
        now = canonical(out.requests[k].get("messages"))
        grown = canonical(out.requests[k - 1].get("messages")) + [as_received(out, k - 1)]
        last = now[-1] if isinstance(now, list) and now else None
        found = (
            difference(now, grown + [last])
            if isinstance(last, dict) and last.get("role") == "user" and len(now) == len(grown) + 1
            else difference(now, grown + [{"role": "user"}])
        )
        if found:
            path, mine, theirs = found
            return tr("request {number}, messages{path}: yours {mine}, the previous request's "
                      "messages, the reply as received and one user message: {theirs}").format(
                          number=k + 1, path=path, mine=shown(mine),
                                                                           theirs=shown(theirs))
    return ""


SENT = {"requests": sent_fields}
ANSWER = {"value": answer}
# how many calls, the tools, the answer
STOPPED = {"requests": calls, "tool_calls": says_what_failed, "value": answer}
RESULTS = {"requests": results_messages, "tool_calls": says_what_failed}


def ended_at_pause(ref, case: Case) -> list:
    """The other reading of a paused turn (lesson 03's own loop, before lesson 06): it ends the run
    as max_tokens does, so the calls up to the first paused response, the tools run before it, and
    no answer (that response appended or not)."""
    paused = next((k for k, r in enumerate(ref.replies)
                   if (r or {}).get("stop_reason") == "pause_turn"), None)
    # no pause, or the reference ended there too
    if paused is None or paused + 1 == len(ref.replies):
        return []
    ran = sum(b.get("type") == "tool_use" for r in ref.replies[:paused]
              for b in r.get("content", []))
    messages = ref.requests[paused].get("messages", [])
    ended = replace(ref, requests=ref.requests[:paused + 1], statuses=ref.statuses[:paused + 1],
                    replies=ref.replies[:paused + 1], tool_calls=ref.tool_calls[:ran])
    return [replace(ended, value=[None, messages]), replace(ended, value=[None, [*messages, {
        "role": "assistant", "content": ref.replies[paused].get("content")}]])]


def rule(name, cases_, aspects=ASPECTS, loose=None, points: float = 1.0,
         readings=ending_appended) -> Rule:
    return Rule(name, cases_, aspects, readings=readings, loose=loose or says_what_failed,
                points=points)


EXERCISES = [
    exercise("agent_loop", "agent_loop", deferred("Fix a broken loop"), NOTEBOOK, [
        rule(deferred("every request sends the model, the tools and the max_tokens given"),
             sent_cases, ("requests",), SENT),
        rule(deferred("end_turn: the answer is the response's text"), answer_cases, ("value",),
             ANSWER),
        rule(deferred("decide from stop_reason, never from how the text looks"), looks_final_cases,
             loose=STOPPED),
        rule(deferred("tool_use: every tool_use run in order, all results in one user message, "
                      "results first, each with its id"), parallel_cases,
             ("requests", "tool_calls"), RESULTS),
        rule(deferred("a tool that raises becomes a result with is_error: true and the error as "
                      "its content"),
             raising_cases, ("requests", "tool_calls"), RESULTS),
        rule(deferred("max_tokens: no answer, no tools run, no further call"), cut_cases,
             loose=STOPPED),
        rule(deferred("pause_turn: the reply is appended as received and sent again with nothing "
                      "added, as a turn (ending the run there, as at max_tokens, is accepted too)"),
             pause_cases,
             loose={"requests": says_what_failed, "tool_calls": says_what_failed,
                    "value": answer_of_pair},
             points=0.5,
             readings=lambda ref, case: ending_appended(ref, case) + ended_at_pause(ref, case)),
        rule(deferred("any other stop reason (a refusal) is treated as max_tokens"),
             other_stop_cases, loose=STOPPED, points=0.5),
        rule(deferred("at most max_turns + 1 model calls (with max_turns=0, one call)"), cap_cases,
             ("requests",), {"requests": calls}),
        rule(deferred("when the response after the last allowed turn still asks for tools, they "
                      "are not run and there is no answer"), cap_cases, ("tool_calls", "value"),
             STOPPED),
        rule(BAD_CAP, bad_cap_cases),
        Rule(deferred("an answer returns the last request's messages plus the final assistant "
                      "message"),
             history_cases, ("requests", "value"), holds=returns_what_it_sent),
        Rule(deferred("no answer returns the last request's messages (the ending response appended "
                      "is accepted)"),
             none_exit_cases, ("requests", "value"), holds=returns_what_it_sent),
        Rule(deferred("each request is the previous one plus the reply exactly as received "
                      "(thinking blocks included) and one user message"), thinking_cases,
             ("requests",), holds=grows_by_one_turn),
    ]),
]
