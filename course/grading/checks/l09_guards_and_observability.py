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

from ...api import Conversation, Turn
from ...scenarios import Scenario, call, get
from ...scenarios.search import search_tools
from ..exercise import Check, Exercise
from .common import accepted, content, expect, loop_args, returned
from .l03_the_first_loop import ENDLESS, RAISES

IN_A_ROW = "counting repeats anywhere in the history: only identical calls in a row are a loop"
SAME_INPUT = "comparing inputs by their text: {'a': 1, 'b': 2} and {'b': 2, 'a': 1} are the same input"
NAME_ONLY = "comparing tool names only: the same tool with another input is progress"
REPEAT_RUN = "running the repeated call before stopping: stop before its tool runs"
NO_REPEAT_GUARD = "no repeated-call guard: a stuck model only stops at max_turns"
DEADLINE = "not checking the deadline before the first call"

CALLS = [  # (calls, max_repeats, expected, the mistake that gets it wrong)
    ([["search", {"q": "a"}]] * 3, 3, 2, IN_A_ROW),
    ([["search", {"q": "a"}], ["search", {"q": "b"}]] + [["search", {"q": "a"}]] * 3, 3, 4, IN_A_ROW),
    ([["search", {"q": "a"}]] * 2 + [["read", {"q": "a"}]] + [["search", {"q": "a"}]] * 2, 3, None, IN_A_ROW),
    ([["search", {"q": "a", "n": 1}], ["search", {"n": 1, "q": "a"}]], 2, 1, SAME_INPUT),
    ([["search", {"q": "a"}], ["search", {"q": "b"}], ["search", {"q": "c"}]], 3, None, NAME_ONLY),
    ([], 3, None, IN_A_ROW),
]


def repeats(ctx) -> None:
    for calls, n, want, mistake in CALLS:
        out = ctx.call(calls, n)
        returned(out)
        expect(out.value == want, f"repeated_call({calls}, {n}) returned {out.value}; expected {want}", mistake)


def stuck_policy(c: Conversation) -> Turn:
    """Asks for the very same search every time."""
    return Turn([call("search", query="Aurora Run")])


STUCK = Scenario("grading_stuck", "A model stuck on one call", "When was the director of Aurora Run born?", stuck_policy,
                 search_tools)
SCENARIOS = [STUCK]


def run(ctx, scenario, **options):
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(*loop_args(sc), scenario=sc, **options)
    accepted(out)
    returned(out)
    value = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    return out, value


def stuck(ctx) -> None:
    out, (subtype, answer) = run(ctx, STUCK, max_repeats=3, max_turns=10)
    expect(len(out.requests) <= 3, f"{len(out.requests)} calls with a model repeating one call; expected 3", NO_REPEAT_GUARD)
    expect(len(out.tool_calls) == 2, f"{len(out.tool_calls)} tools ran; the third identical call must not run", REPEAT_RUN)
    expect(subtype == "error_repeated_call" and answer is None, f"ended ({subtype!r}, {answer!r}); expected ('error_repeated_call', None)")


def progress(ctx) -> None:
    out, (subtype, answer) = run(ctx, ENDLESS, max_repeats=2, max_turns=4)
    expect(len(out.requests) == 5 and subtype == "error_max_turns",
           f"different searches every turn, max_turns=4: {len(out.requests)} calls ending {subtype!r}; expected 5 and "
           "'error_max_turns'", NAME_ONLY)
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=3600)
    expect((subtype, answer) == ("success", "1974"), f"Aurora Run ended ({subtype!r}, {answer!r})")


def deadline(ctx) -> None:
    out, (subtype, answer) = run(ctx, "aurora_run", timeout_s=0)
    expect(not out.requests and subtype == "error_timeout",
           f"timeout_s=0: {len(out.requests)} calls ending {subtype!r}; expected none and 'error_timeout'", DEADLINE)


TOKENS_TOTAL = "logging running token totals: each record holds its own call's usage"
RESULTS_MISSING = "not logging the results with their ids and is_error: the tool_result stream shows whether the environment cooperated"
USES_MISSING = "not logging every tool_use with its id, name and input"


def records(ctx, scenario) -> tuple:
    out = ctx.call(*loop_args(scenario), scenario=scenario)
    accepted(out)
    returned(out)
    log = out.value if isinstance(out.value, list) else []
    expect(len(log) == len(out.requests), f"{len(log)} records for {len(out.requests)} model calls; expected one per call")
    return out, log


def logged(ctx) -> None:
    for scenario in (get("aurora_run"), RAISES):
        out, log = records(ctx, scenario)
        for k, (record, reply) in enumerate(zip(log, out.replies)):
            where = f"{scenario.name}, record {k + 1}"
            expect(isinstance(record, dict) and record.get("call") == k + 1, f"{where}: call is not {k + 1}")
            expect(record.get("stop_reason") == reply["stop_reason"], f"{where}: stop_reason {record.get('stop_reason')!r}, "
                   f"the API answered {reply['stop_reason']!r}")
            usage = reply["usage"]
            expect((record.get("input_tokens"), record.get("output_tokens")) == (usage["input_tokens"], usage["output_tokens"]),
                   f"{where}: tokens {record.get('input_tokens')}/{record.get('output_tokens')}, the call's usage was "
                   f"{usage['input_tokens']}/{usage['output_tokens']}", TOKENS_TOTAL)
            uses = [{"id": b["id"], "name": b["name"], "input": b["input"]} for b in reply["content"] if b["type"] == "tool_use"]
            expect(record.get("tool_uses") == uses, f"{where}: tool_uses {record.get('tool_uses')}, expected {uses}", USES_MISSING)
            sent = content(out.requests[k + 1]["messages"][-1]) if k + 1 < len(out.requests) else []
            want = [{"tool_use_id": b["tool_use_id"], "is_error": bool(b.get("is_error")), "preview": str(b["content"])[:80]}
                    for b in sent if b.get("type") == "tool_result"]
            expect(record.get("results") == want, f"{where}: results {record.get('results')}, expected {want}", RESULTS_MISSING)


EXERCISES = [
    Exercise("repeated_call", "repeated_call", "Detecting a repeated identical call", [
        Check("identical calls in a row, inputs compared as values", repeats),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("guarded_loop", "guarded_loop", "A loop with a repeat guard and a deadline", [
        Check("a model stuck on one call is stopped before the repeat runs", stuck),
        Check("different calls are progress; a far deadline changes nothing", progress),
        Check("a deadline already passed stops before the first call", deadline),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
    Exercise("turn_log", "turn_log", "What to log each turn", [
        Check("one record per call: stop_reason, tool_uses, results, that call's tokens", logged),
    ], notebook="solutions/09_guards_and_observability.ipynb"),
]
