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
from ...scenarios import Scenario, call, get, say
from ...scenarios.search import search_tools
from ..exercise import Check, Exercise
from .common import accepted, content, expect, loop_args, returned, shown
from .l03_the_first_loop import ENDLESS, RAISES

IN_A_ROW = "counting repeats anywhere in the history: only identical calls in a row are a loop"
SAME_INPUT = "comparing inputs by their text: {'a': 1, 'b': 2} and {'b': 2, 'a': 1} are the same input"
NAME_ONLY = "comparing tool names only: the same tool with another input is progress"
REPEAT_RUN = "running the call that makes max_repeats in a row: it is answered with a warning instead"
STOPS_AT_ONCE = "stopping at the first repeat, as lesson 09 does: the changed rule warns once and lets the model go on"
WARNING_NOT_ERROR = "a warning without is_error: true: the repeated call was not run, so its result is an error"
NO_REPEAT_GUARD = "no repeated-call guard: a stuck model only stops at max_turns"
DEADLINE = "not checking the deadline before the first call"
TOOLS_AFTER_DEADLINE = "not checking the deadline before running tools: the model may have used it up"

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
        mistake = known.get(out.value, "") if isinstance(out.value, (int, type(None))) else ""
        expect(out.value == want, f"repeated_call({calls}, {n}) returned {out.value}; expected {want}", mistake)


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
    expect(n >= 4, f"{n} calls, {ran} tools run, ended {shown([subtype, answer])}; expected the third identical call "
           "answered with a warning and a fourth call",
           STOPS_AT_ONCE if n == 3 and subtype == "error_repeated_call" else "")
    expect(ran == 2, f"{ran} tools ran; the third identical call must not run", REPEAT_RUN if ran == 3 else "")
    result = warning(out)
    expect(result.get("is_error") is True and result.get("content"), f"the third identical call was answered with "
           f"is_error {result.get('is_error')!r} and content {str(result.get('content'))[:60]!r}; expected an is_error "
           "warning", WARNING_NOT_ERROR if result.get("content") and not result.get("is_error") else "")
    expect(n == 4 and (subtype, answer) == want, f"{n} calls, ended {shown([subtype, answer])}; expected 4 calls and "
           f"{want}", NO_REPEAT_GUARD if n == 11 else "")


def stuck(ctx) -> None:
    warned(ctx, STUCK, ("error_repeated_call", None))


def recovers(ctx) -> None:
    warned(ctx, RECOVERS, ("success", "I was repeating myself. Mara Voss was born in 1974."))


def progress(ctx) -> None:
    out, (subtype, answer) = run(ctx, ENDLESS, max_repeats=2, max_turns=4)
    expect(len(out.requests) == 5 and subtype == "error_max_turns",
           f"different searches every turn, max_turns=4: {len(out.requests)} calls ending {subtype!r}; expected 5 and "
           "'error_max_turns'", NAME_ONLY if subtype == "error_repeated_call" else "")
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=3600)
    expect((subtype, answer) == ("success", "1974"), f"Aurora Run ended {shown([subtype, answer])}")
    out, (subtype, answer) = run(ctx, RAISES)
    failed = ("success", "The search failed, so I cannot answer.")
    expect((subtype, answer) == failed, f"with a tool that raises: ended {shown([subtype, answer])}; expected {failed}")


def deadline(ctx) -> None:
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=0)
    expect(not out.requests and subtype == "error_timeout",
           f"timeout_s=0: {len(out.requests)} calls ending {subtype!r}; expected none and 'error_timeout'",
           DEADLINE if out.requests else "")
    out, (subtype, answer) = run(ctx, SLOW, timeout_s=SLOW_S / 2)
    expect(subtype == "error_timeout" and not out.tool_calls, f"a deadline that passes while the model answers: "
           f"{len(out.requests)} calls, {len(out.tool_calls)} tools run, ended {subtype!r}; expected 'error_timeout' "
           "before running the tools", TOOLS_AFTER_DEADLINE if out.tool_calls and len(out.requests) == 1 else "")


TOKENS_TOTAL = "logging running token totals: each record holds its own call's usage"
RESULTS_MISSING = ("not logging the results with their ids and is_error: "
                   "the tool_result stream shows whether the environment cooperated")
USES_MISSING = "not logging every tool_use with its id, name and input"


def records(ctx, scenario) -> tuple:
    out = ctx.call(*loop_args(scenario), scenario=scenario)
    accepted(out)
    returned(out)
    log = out.value if isinstance(out.value, list) else []
    expect(len(log) == len(out.requests),
           f"{len(log)} records for {len(out.requests)} model calls; expected one per call")
    return out, log


def logged(ctx) -> None:
    for scenario in (get("aurora_run"), RAISES):
        out, log = records(ctx, scenario)
        running = list(accumulate(r["usage"]["input_tokens"] for r in out.replies))  # what a running total would log
        for k, (record, reply) in enumerate(zip(log, out.replies)):
            where = f"{scenario.name}, record {k + 1}"
            expect(isinstance(record, dict) and record.get("call") == k + 1, f"{where}: call is not {k + 1}")
            expect(record.get("stop_reason") == reply["stop_reason"],
                   f"{where}: stop_reason {record.get('stop_reason')!r}, "
                   f"the API answered {reply['stop_reason']!r}")
            usage = reply["usage"]
            expect((record.get("input_tokens"), record.get("output_tokens"))
                   == (usage["input_tokens"], usage["output_tokens"]),
                   f"{where}: tokens {record.get('input_tokens')}/{record.get('output_tokens')}, the call's usage was "
                   f"{usage['input_tokens']}/{usage['output_tokens']}",
                   TOKENS_TOTAL if k and record.get("input_tokens") == running[k] else "")
            uses = [{"id": b["id"], "name": b["name"], "input": b["input"]}
                    for b in reply["content"] if b["type"] == "tool_use"]
            expect(record.get("tool_uses") == uses, f"{where}: tool_uses {record.get('tool_uses')}, expected {uses}",
                   USES_MISSING if uses and not record.get("tool_uses") else "")
            sent = content(out.requests[k + 1]["messages"][-1]) if k + 1 < len(out.requests) else []
            want = [{"tool_use_id": b["tool_use_id"], "is_error": bool(b.get("is_error")),
                     "preview": str(b["content"])[:80]}
                    for b in sent if b.get("type") == "tool_result"]
            expect(record.get("results") == want, f"{where}: results {record.get('results')}, expected {want}",
                   RESULTS_MISSING if want and not record.get("results") else "")


EXERCISES = [
    Exercise("repeated_call", "repeated_call", "Detecting a repeated identical call", [
        Check("identical calls in a row, inputs compared as values", repeats),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("guarded_loop", "guarded_loop", "A repeat rule that warns once, and a deadline", [
        Check("the third identical call is answered with an is_error warning; the same call again stops", stuck),
        Check("a model that changes course after the warning goes on to its answer", recovers),
        Check("different calls are progress; a far deadline and a failing tool change nothing", progress),
        Check("a deadline is checked before the first call and before running tools", deadline),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("turn_log", "turn_log", "What to log each turn", [
        Check("one record per call: stop_reason, tool_uses, results, that call's tokens", logged),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
]
