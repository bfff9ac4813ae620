"""Lesson 04, termination: the turn cap T bounds the calls by T+1 (Thm. 4.1); turns counted two
ways.

calls_needed(turns, max_turns) -> (calls, finished)
  a model needs `turns` tool-use turns before it answers; with max_turns (None: no cap), how many
  model calls happen and does the run finish?
count_run(messages) -> {"calls": ..., "turns": ..., "tool_calls": ..., "steps": ...}
  for a finished history (it ends with the final assistant message): model calls, tool-use turns
  (the Agent SDK's count), tool calls, and steps counted as LangGraph does (model steps + tool
  steps).

Each rule is one sentence of the exercise's text, judged against the reference (solutions/04_...) on
generated cases: every turns 0-6 against every cap 0-5 and no cap; finished runs of 0-3 turns of 1-3
calls each.
"""
from __future__ import annotations

import itertools

from ....i18n import deferred, tr
from ....messages import assistant, text, tool_result, tool_use, user
from ..cases import pick
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/04_termination.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l04_*), named only when a student's function
# does exactly that
CAP_AS_CALLS = deferred("counting max_turns as model calls: the cap allows max_turns tool-use "
                        "turns, so up to max_turns + 1 calls")
NO_ANSWER_CALL = deferred("forgetting the call that brings the answer: turns tool-use turns take "
                          "turns + 1 calls")
CAP_BOUNDARY = deferred("taking turns == max_turns for capped: the model answers in call max_turns "
                        "+ 1, which the cap allows")
ZERO_IS_NO_CAP = deferred("reading max_turns=0 as no cap (`if not max_turns`): 0 is a cap that "
                          "allows no tool-use turn; only None means no cap")
PARALLEL = deferred("counting tool calls as turns: one response may ask for several tools in one "
                    "turn")
STEPS = deferred("steps as LangGraph counts them: every model call and every tool turn is a step, "
                 "not every tool call")
IN_PLACE = deferred("changing messages in place: count without modifying the history")

# --- calls_needed
# -------------------------------------------------------------------------------------

PAIRS = [(turns, cap) for cap in [None, *range(6)] for turns in range(7)]


def need_cases(keep, n: int, seed: int):
    def made() -> list[Case]:
        found = sorted([p for p in PAIRS if keep(*p)], key=lambda p: (p[0] + (p[1] or 0), p[0]))
        return [Case(f"calls_needed{p}", p) for p in pick(found, n, keep=3, seed=seed)]

    return made


# --- count_run
# ----------------------------------------------------------------------------------------


def fix_failing_test() -> list:
    """Example 4.3: three tool-use turns (one call, two reads, an edit and a test run), four model
    calls."""
    return [user("Fix the failing test."),
            assistant("I'll run the tests first.", tool_use("u1", "Bash", {"command": "pytest"})),
            user(tool_result("u1", "1 failed", is_error=True)),
            assistant(tool_use("u2", "Read", {"path": "cart.py"}),
                      tool_use("u3", "Read", {"path": "test_cart.py"})),
            user(tool_result("u2", "..."), tool_result("u3", "...")),
            assistant(tool_use("u4", "Edit", {"path": "cart.py"}),
                      tool_use("u5", "Bash", {"command": "pytest"})),
            user(tool_result("u4", "ok"), tool_result("u5", "3 passed")),
            assistant("The boundary check was wrong; all tests pass now.")]


def run(turns: tuple[int, ...], note: bool = False, thinks: bool = False) -> list:
    """A finished run whose k-th tool-use turn asks for turns[k] tools; a note after the results,
    thinking first."""
    thought = [{"type": "thinking", "thinking": "", "signature": "local.sig"}] if thinks else []
    messages = [{"role": "user", "content": "When was the director of Aurora Run born?"}]
    n = 0
    for calls in turns:
        ids = [f"toolu_{n + j}" for j in range(calls)]
        n += calls
        messages.append(assistant(*thought,
                                  *(tool_use(i, "search", {"query": f"page {i}"}) for i in ids)))
        messages.append(user(*(tool_result(i, "...") for i in ids),
                             *([text("Also check 1951.")] if note else [])))
    messages.append(assistant(*thought, "1974"))
    return messages


def run_cases() -> list[Case]:
    shapes = [()] + [t for n in (1, 2, 3) for t in itertools.product((1, 2, 3), repeat=n)]
    how = ["", tr(", a note after the results"), tr(", thinking first")]
    made = [Case(tr("count_run(a run of turns {turns}{how})").format(turns=list(t), how=how[k % 3]),
                 (run(t, k % 3 == 1, k % 3 == 2),)) for k, t in enumerate(shapes)]
    return [Case(tr("count_run(example 4.3)"), (fix_failing_test(),))] + pick(
        made, 13, keep=5, seed=7)


def key(*names: str):
    """A `loose` that keeps some counts of the returned dict (the first is the rule's; steps keeps
    turns too, as steps = calls + turns, so a wrong turn count is not taken for a wrong step
    count)."""
    return lambda value: (
        {n: value.get(n, "nothing") for n in names} if isinstance(value, dict) else value
    )


EXERCISES = [
    exercise("calls_needed", "calls_needed", deferred("How many calls a capped run makes"),
             NOTEBOOK, [
        Rule(
            deferred("no cap (None), or turns <= max_turns: turns + 1 calls, and the run finishes"),
            need_cases(lambda r, cap: cap is None or r <= cap, 12, 0)),
        Rule(deferred("turns > max_turns: max_turns + 1 calls, and the run does not finish"),
            need_cases(lambda r, cap: cap is not None and r > cap, 10, 1)),
        Rule(deferred("max_turns=0 allows no tool-use turn: one call, which finishes only when "
                      "turns is 0"),
            need_cases(lambda r, cap: cap == 0, 4, 2)),
    ]),
    exercise("count_run", "count_run", deferred("Counting calls, turns, tool calls and steps"),
             NOTEBOOK, [
        Rule(deferred("calls: the model calls, one per assistant message"), run_cases,
             loose=key("calls")),
        Rule(deferred("turns: the assistant messages with a tool_use"), run_cases,
             loose=key("turns")),
        Rule(deferred("tool_calls: the tool_use blocks"), run_cases, loose=key("tool_calls")),
        Rule(deferred("steps: each model call and each turn of tool execution"), run_cases,
            loose=key("steps", "turns")),
        Rule(deferred("the history is left unchanged"), run_cases, ("after",)),
    ]),
]
