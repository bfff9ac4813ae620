"""Lesson 09, guards: a repeated identical call and a wall-clock deadline stop the loop (study guide's five guards).

repeated_call(calls, max_repeats=3) -> int | None
  calls is a list of [name, input]; the index of the call that makes max_repeats identical calls in a
  row (same name, equal input), or None.
guarded_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3, timeout_s=None,
             clock=time.monotonic) -> (subtype, answer)
  the loop of lesson 03 with two more guards, checked before the tools run: the same call max_repeats
  times in a row ("error_repeated_call") and clock() - start >= timeout_s, also checked before each
  call ("error_timeout"); otherwise "success" or "error_max_turns".
turn_log(client, model, tools, run_tool, prompt, *, max_turns=10) -> list[dict]
  the loop of lesson 03, returning one record per model call: {"call": k (1-based), "stop_reason",
  "tool_uses": [{"id", "name", "input"}], "results": [{"tool_use_id", "is_error", "preview"}] (the
  first 80 characters of each result's content; [] when no tools ran), "input_tokens", "output_tokens"}
  (that call's usage, not running totals).
"""
from __future__ import annotations

import time
from itertools import accumulate

from ...api import Conversation, Turn
from ...i18n import deferred, tr
from ...scenarios import Scenario, call, get, say
from ...scenarios.search import search_tools
from ..exercise import Check, Exercise
from .common import accepted, content, expect, loop_args, returned, shown
from .l03_the_first_loop import ENDLESS, RAISES

IN_A_ROW = deferred("counting repeats anywhere in the history: only identical calls in a row are a loop")
SAME_INPUT = deferred("comparing inputs by their text: {'a': 1, 'b': 2} and {'b': 2, 'a': 1} are the same input")
NAME_ONLY = deferred("comparing tool names only: the same tool with another input is progress")
REPEAT_RUN = deferred("running the call that makes max_repeats in a row: it is answered with a warning instead")
STOPS_AT_ONCE = deferred("stopping at the first repeat, as lesson 09 does: the changed rule warns once and lets the "
                         "model go on")
WARNING_NOT_ERROR = deferred("a warning without is_error: true: the repeated call was not run, so its result is an "
                             "error")
NO_REPEAT_GUARD = deferred("no repeated-call guard: a stuck model only stops at max_turns")
DEADLINE = deferred("not checking the deadline before the first call")
TOOLS_AFTER_DEADLINE = deferred("not checking the deadline before running tools: the model may have used it up")

CALLS = [  # (calls, max_repeats, expected, {the value a known mistake returns: that mistake})
    ([["search", {"q": "a"}]] * 3, 3, 2, {}),
    ([["search", {"q": "a"}], ["search", {"q": "b"}]] + [["search", {"q": "a"}]] * 3, 3, 4,
     {3: IN_A_ROW, 2: NAME_ONLY}),
    ([["search", {"q": "a"}]] * 2 + [["read", {"q": "a"}]] + [["search", {"q": "a"}]] * 2, 3, None, {3: IN_A_ROW}),
    ([["search", {"q": "a", "n": 1}], ["search", {"n": 1, "q": "a"}]], 2, 1, {None: SAME_INPUT}),
    ([["search", {"q": "a"}], ["search", {"q": "b"}], ["search", {"q": "c"}]], 3, None, {2: NAME_ONLY}),
    ([], 3, None, {}),
]


def repeats(ctx) -> None:
    for calls, n, want, known in CALLS:
        out = ctx.call(calls, n)
        returned(out)
        known_value = isinstance(out.value, (int, type(None))) and out.value in known
        expect(out.value == want, tr("repeated_call({calls}, {n}) returned {got}; expected {want}").format(
            calls=calls, n=n, got=out.value, want=want), tr(known[out.value]) if known_value else "")


def stuck_policy(c: Conversation) -> Turn:
    """Asks for the very same search every time."""
    return Turn([call("search", query="Aurora Run")])


def recovering_policy(c: Conversation) -> Turn:
    """Repeats one search until a result warns it, then answers."""
    if any(r.get("is_error") for r in c.results()):
        return say("I was repeating myself. Mara Voss was born in 1974.")
    return Turn([call("search", query="Aurora Run")])


SLOW_S = 0.5  # how long the slow model takes to answer: longer than the deadline below


def slow_policy(c: Conversation) -> Turn:
    """Takes SLOW_S seconds, then asks for a search: the deadline passes while the model thinks."""
    time.sleep(SLOW_S)
    return Turn([call("search", query="Aurora Run")])


SLOW = Scenario("grading_slow", "A model slower than the deadline", "When was the director of Aurora Run born?",
                slow_policy, search_tools)
RECOVERS = Scenario("grading_recovers", "A model that stops repeating once warned",
                    "When was the director of Aurora Run born?", recovering_policy, search_tools)
STUCK = Scenario("grading_stuck", "A model stuck on one call", "When was the director of Aurora Run born?",
                 stuck_policy,
                 search_tools)
SCENARIOS = [STUCK, RECOVERS, SLOW]


def run(ctx, scenario, **options):
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(*loop_args(sc), scenario=sc, **options)
    accepted(out)
    returned(out)
    value = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    return out, value


def warning(out) -> dict:
    """The result that answered the third identical call (in request 4), or {}."""
    sent = content(out.requests[3]["messages"][-1]) if len(out.requests) > 3 else []
    return sent[0] if sent and sent[0].get("type") == "tool_result" else {}


def warned(ctx, scenario, want: tuple) -> None:
    """Calls 1 and 2 run, call 3 is answered with an is_error warning and not run, then `want`."""
    out, (subtype, answer) = run(ctx, scenario, max_repeats=3, max_turns=10)
    n, ran = len(out.requests), len(out.tool_calls)
    ended = shown([subtype, answer])
    expect(n >= 4, tr("{n} calls, {ran} tools run, ended {ended}; expected the third identical call answered with a "
                      "warning and a fourth call").format(n=n, ran=ran, ended=ended),
           STOPS_AT_ONCE if n == 3 and subtype == "error_repeated_call" else "")
    expect(ran == 2, tr("{ran} tools ran; the third identical call must not run").format(ran=ran),
           REPEAT_RUN if ran == 3 else "")
    result = warning(out)
    expect(result.get("is_error") is True and result.get("content"),
           tr("the third identical call was answered with is_error {is_error!r} and content {content!r}; expected an "
              "is_error warning").format(is_error=result.get("is_error"), content=str(result.get("content"))[:60]),
           WARNING_NOT_ERROR if result.get("content") and not result.get("is_error") else "")
    expect(n == 4 and (subtype, answer) == want,
           tr("{n} calls, ended {ended}; expected 4 calls and {want}").format(n=n, ended=ended, want=want),
           NO_REPEAT_GUARD if n == 11 else "")


def stuck(ctx) -> None:
    warned(ctx, STUCK, ("error_repeated_call", None))


def recovers(ctx) -> None:
    warned(ctx, RECOVERS, ("success", "I was repeating myself. Mara Voss was born in 1974."))


def progress(ctx) -> None:
    out, (subtype, answer) = run(ctx, ENDLESS, max_repeats=2, max_turns=4)
    expect(len(out.requests) == 5 and subtype == "error_max_turns",
           tr("different searches every turn, max_turns=4: {n} calls ending {subtype!r}; expected 5 and "
              "'error_max_turns'").format(n=len(out.requests), subtype=subtype),
           NAME_ONLY if subtype == "error_repeated_call" else "")
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=3600)
    expect((subtype, answer) == ("success", "1974"),
           tr("Aurora Run ended {ended}").format(ended=shown([subtype, answer])))
    out, (subtype, answer) = run(ctx, RAISES)
    failed = ("success", "The search failed, so I cannot answer.")
    expect((subtype, answer) == failed, tr("with a tool that raises: ended {ended}; expected {want}").format(
        ended=shown([subtype, answer]), want=failed))


def deadline(ctx) -> None:
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=0)
    expect(not out.requests and subtype == "error_timeout",
           tr("timeout_s=0: {n} calls ending {subtype!r}; expected none and 'error_timeout'").format(
               n=len(out.requests), subtype=subtype),
           DEADLINE if out.requests else "")
    out, (subtype, answer) = run(ctx, SLOW, timeout_s=SLOW_S / 2)
    expect(subtype == "error_timeout" and not out.tool_calls,
           tr("a deadline that passes while the model answers: {n} calls, {ran} tools run, ended {subtype!r}; "
              "expected 'error_timeout' before running the tools").format(
               n=len(out.requests), ran=len(out.tool_calls), subtype=subtype),
           TOOLS_AFTER_DEADLINE if out.tool_calls and len(out.requests) == 1 else "")


TOKENS_TOTAL = deferred("logging running token totals: each record holds its own call's usage")
RESULTS_MISSING = deferred("not logging the results with their ids and is_error: "
                           "the tool_result stream shows whether the environment cooperated")
USES_MISSING = deferred("not logging every tool_use with its id, name and input")


def records(ctx, scenario) -> tuple:
    out = ctx.call(*loop_args(scenario), scenario=scenario)
    accepted(out)
    returned(out)
    log = out.value if isinstance(out.value, list) else []
    expect(len(log) == len(out.requests),
           tr("{records} records for {calls} model calls; expected one per call").format(
               records=len(log), calls=len(out.requests)))
    return out, log


def logged(ctx) -> None:
    for scenario in (get("aurora_run"), RAISES):
        out, log = records(ctx, scenario)
        running = list(accumulate(r["usage"]["input_tokens"] for r in out.replies))  # what a running total would log
        for k, (record, reply) in enumerate(zip(log, out.replies)):
            where = tr("{scenario}, record {k}").format(scenario=scenario.name, k=k + 1)
            expect(isinstance(record, dict) and record.get("call") == k + 1,
                   tr("{where}: call is not {k}").format(where=where, k=k + 1))
            expect(record.get("stop_reason") == reply["stop_reason"],
                   tr("{where}: stop_reason {got!r}, the API answered {want!r}").format(
                       where=where, got=record.get("stop_reason"), want=reply["stop_reason"]))
            usage = reply["usage"]
            expect((record.get("input_tokens"), record.get("output_tokens"))
                   == (usage["input_tokens"], usage["output_tokens"]),
                   tr("{where}: tokens {got_in}/{got_out}, the call's usage was {want_in}/{want_out}").format(
                       where=where, got_in=record.get("input_tokens"), got_out=record.get("output_tokens"),
                       want_in=usage["input_tokens"], want_out=usage["output_tokens"]),
                   TOKENS_TOTAL if k and record.get("input_tokens") == running[k] else "")
            uses = [{"id": b["id"], "name": b["name"], "input": b["input"]}
                    for b in reply["content"] if b["type"] == "tool_use"]
            expect(record.get("tool_uses") == uses,
                   tr("{where}: tool_uses {got}, expected {want}").format(where=where, got=record.get("tool_uses"),
                                                                         want=uses),
                   USES_MISSING if uses and not record.get("tool_uses") else "")
            sent = content(out.requests[k + 1]["messages"][-1]) if k + 1 < len(out.requests) else []
            want = [{"tool_use_id": b["tool_use_id"], "is_error": bool(b.get("is_error")),
                     "preview": str(b["content"])[:80]}
                    for b in sent if b.get("type") == "tool_result"]
            expect(record.get("results") == want,
                   tr("{where}: results {got}, expected {want}").format(where=where, got=record.get("results"),
                                                                       want=want),
                   RESULTS_MISSING if want and not record.get("results") else "")


EXERCISES = [
    Exercise("repeated_call", "repeated_call", deferred("Detecting a repeated identical call"), [
        Check(deferred("identical calls in a row, inputs compared as values"), repeats),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("guarded_loop", "guarded_loop", deferred("A repeat rule that warns once, and a deadline"), [
        Check(deferred("the third identical call is answered with an is_error warning; the same call again stops"),
              stuck),
        Check(deferred("a model that changes course after the warning goes on to its answer"), recovers),
        Check(deferred("different calls are progress; a far deadline and a failing tool change nothing"), progress),
        Check(deferred("a deadline is checked before the first call and before running tools"), deadline),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("turn_log", "turn_log", deferred("What to log each turn"), [
        Check(deferred("one record per call: stop_reason, tool_uses, results, that call's tokens"), logged),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
]
