"""Lesson 04, termination: the turn cap T bounds the calls by T+1 (Thm. 4.1); turns counted two ways.

calls_needed(rounds, max_turns) -> (calls, finished)
  a model needs `rounds` tool-use rounds before it answers; with max_turns (None: no cap), how many
  model calls happen and does the run finish?
count_run(messages) -> {"calls": ..., "turns": ..., "tool_calls": ..., "steps": ...}
  for a finished history (it ends with the final assistant message): model calls, tool-use turns
  (the Agent SDK's count), tool calls, and steps counted as LangGraph does (model steps + tool steps).
"""
from __future__ import annotations

from ...i18n import deferred, tr
from ...messages import assistant, text, tool_result, tool_use, user
from ..exercise import Check, Exercise
from .common import expect, returned, shown

OFF_BY_ONE = deferred("an off-by-one: the response after the T-th turn is the (T+1)-th call, and its tools are not run")
NO_CAP = deferred("max_turns=None means no cap: the run ends when the model answers")
FINISHED = deferred("a run finishes only if the model answers within the cap: rounds <= max_turns")
PARALLEL = deferred("counting tool calls as turns: one response may ask for several tools in one turn")
STEPS = deferred("steps as LangGraph counts them: every model call and every tool turn is a step")

CASES = [(0, 10, 1, True), (2, 10, 3, True), (2, 2, 3, True), (3, 2, 3, False), (5, 0, 1, False), (7, None, 8, True)]


def cap_cases(ctx) -> None:
    for rounds, cap, calls, finished in CASES:
        out = ctx.call(rounds, cap)
        returned(out)
        got = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
        why = tr("calls_needed({rounds}, {cap}) returned {value}; expected ({calls}, {finished})").format(
            rounds=rounds, cap=cap, value=shown(out.value), calls=calls, finished=finished)
        off = isinstance(got[0], int) and abs(got[0] - calls) == 1
        expect(got[0] == calls, why, NO_CAP if cap is None else OFF_BY_ONE if off else "")
        expect(got[1] is finished, why, FINISHED)


def fix_failing_test() -> list:
    """Example 4.3: three tool-use turns (one call, two reads, an edit and a test run), four model calls."""
    return [user("Fix the failing test."),
            assistant("I'll run the tests first.", tool_use("u1", "Bash", {"command": "pytest"})),
            user(tool_result("u1", "1 failed", is_error=True)),
            assistant(tool_use("u2", "Read", {"path": "cart.py"}), tool_use("u3", "Read", {"path": "test_cart.py"})),
            user(tool_result("u2", "..."), tool_result("u3", "...")),
            assistant(tool_use("u4", "Edit", {"path": "cart.py"}), tool_use("u5", "Bash", {"command": "pytest"})),
            user(tool_result("u4", "ok"), tool_result("u5", "3 passed")),
            assistant("The boundary check was wrong; all tests pass now.")]


RUNS = [  # (what, messages, expected counts)
    (deferred("example 4.3"), fix_failing_test(), {"calls": 4, "turns": 3, "tool_calls": 5, "steps": 7}),
    (deferred("a one-shot answer"), [user("Capital of France?"), assistant("Paris")],
     {"calls": 1, "turns": 0, "tool_calls": 0, "steps": 1}),
    (deferred("a turn with a note after the results"),
     [user("q"), assistant(tool_use("a", "search", {})), user(tool_result("a", "x"), text("Also check 1951.")),
      assistant("1974")],
     {"calls": 2, "turns": 1, "tool_calls": 1, "steps": 3}),
]


def count_cases(ctx) -> None:
    for what, messages, want in RUNS:
        out = ctx.call(messages)
        returned(out)
        got = out.value if isinstance(out.value, dict) else {}
        named = {"turns": PARALLEL if got.get("turns") == want["tool_calls"] != want["turns"] else "", "steps": STEPS}
        for key in ("calls", "turns", "tool_calls", "steps"):
            expect(got.get(key) == want[key], tr("{what}: {key} = {got}, expected {want}").format(
                what=tr(what), key=key, got=got.get(key), want=want[key]), named.get(key, ""))


EXERCISES = [
    Exercise("calls_needed", "calls_needed", deferred("How many calls a capped run makes"), [
        Check(deferred("calls and finish for rounds and caps, T = 0 and no cap included"), cap_cases),
    ], notebook="solutions/04_termination.ipynb"),
    Exercise("count_run", "count_run", deferred("Counting calls, turns, tool calls and steps"), [
        Check(deferred("example 4.3 and two more runs, counted four ways"), count_cases),
    ], notebook="solutions/04_termination.ipynb"),
]
