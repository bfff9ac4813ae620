"""Lesson 07, context growth and budgets: Prop. 5.2, example 5.3, Prop. 5.4 and exercises 10.1-10.4.

budget_loop(client, model, tools, run_tool, prompt, *, max_budget_usd, max_turns=10) -> (subtype, spent_usd, calls)
  the loop of lesson 03 with a budget checked after each response, before its tools; subtype is
  "success", "error_max_budget_usd" or "error_max_turns"; costs from course.pricing.cost_usd.
input_tokens(s, turns) -> [n_1, ..., n_K]   n_k = s + sum of turns[:k-1] (turns[i] = a_i + r_i), K = len(turns) + 1
max_calls(window, s, c) -> int              the most calls whose input fits the window when each turn adds c
worst_costs(budget, c_max, delta) -> list   costs <= c_max for which the budget stop lands at budget + c_max - delta
user_turn(results, notes) -> dict           the user message of a turn: the tool_result blocks, then the notes as text
"""
from __future__ import annotations

import math

from ...api import APIError
from ...api.tokens import message_tokens
from ...api.validate import validate_request
from ...client import MODEL
from ...messages import tool_result, tool_use, violations
from ...pricing import cost_usd
from ...scenarios import get
from ..exercise import Check, CheckFailed, Exercise
from .common import expect, loop_args, returned
from .l03_the_first_loop import ENDLESS

CHECK_BEFORE_TOOLS = ("checking the budget before the next call instead of after each response: "
                      "the tools of the response that crossed it ran")
NO_BUDGET = "never stopping for the budget"
LAST_COST = "leaving the last response's cost out of the spend: it is paid once the response arrives"
FINAL_AS_BUDGET = "checking the budget before stop_reason: a response without tool use ends the run as success"
SUBTYPE = "the wrong subtype: success, error_max_budget_usd or error_max_turns, as the Agent SDK names them"
T_ZERO = "exercise 10.1: with max_turns=0 the loop makes exactly one call and runs no tools"
LINEAR = "n_k = s + the sum of a_i + r_i over the turns before call k (Prop. 5.2)"
FLOOR = "the window bound K <= (W - s)/c + 1 counts whole calls: round down"
SPLIT = "each cost must be at most c_max: split B - delta into pieces no bigger than c_max"
TEXT_FIRST = "exercise 10.2: text before the tool_result blocks breaks P2"


SUBTYPES = ("success", "error_max_budget_usd", "error_max_turns")


def subtype_hint(subtype) -> str:
    return "" if subtype in SUBTYPES else SUBTYPE


def spend_hint(spent, c: list[float]) -> str:
    """LAST_COST when the reported spend is exactly the responses' cost without the last one."""
    left_out = isinstance(spent, (int, float)) and len(c) > 1 and math.isclose(spent, sum(c[:-1]), rel_tol=1e-9)
    return LAST_COST if left_out else ""


def costs(out) -> list[float]:
    return [cost_usd(MODEL, r["usage"]) for r in out.replies]


def run(ctx, scenario, **options):
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(*loop_args(sc), scenario=sc, **options)
    returned(out)
    value = out.value if isinstance(out.value, list) and len(out.value) == 3 else [None, None, None]
    return out, value


def success(ctx) -> None:
    out, (subtype, spent, calls) = run(ctx, "aurora_run", max_budget_usd=1.0)
    expect(subtype == "success", f"Aurora Run under a $1 budget ended {subtype!r}; expected 'success'",
           subtype_hint(subtype))
    expect(calls == len(out.requests) == 3, f"reported {calls} calls, {len(out.requests)} were made; expected 3")
    expect(spent is not None and math.isclose(spent, sum(costs(out)), rel_tol=1e-9),
           f"reported ${spent} spent; the three responses cost ${sum(costs(out)):.8f}", spend_hint(spent, costs(out)))


def after_response(ctx) -> None:
    probe, _ = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=4)
    c = costs(probe)
    expect(len(c) == 5, f"a calibration run with max_turns=4 made {len(c)} calls; expected 5")
    budget = c[0] + c[1] + c[2] / 2  # crossed by the third response
    out, (subtype, spent, calls) = run(ctx, ENDLESS, max_budget_usd=budget, max_turns=10)
    expect(len(out.requests) >= 3, f"{len(out.requests)} calls; the budget is reached only by the third response")
    expect(len(out.requests) == 3, f"{len(out.requests)} calls with a budget reached by the third response; expected 3",
           NO_BUDGET if len(out.requests) == 11 else "")
    expect(len(out.tool_calls) == 2, f"{len(out.tool_calls)} tools ran; the third response's tool must not run",
           CHECK_BEFORE_TOOLS)
    expect(subtype == "error_max_budget_usd", f"ended {subtype!r}; expected 'error_max_budget_usd'",
           subtype_hint(subtype))
    expect(spent is not None and math.isclose(spent, sum(c[:3]), rel_tol=1e-9) and spent < budget + max(c),
           f"reported ${spent}; expected the three responses' ${sum(c[:3]):.8f}, under B + c_max (Prop. 5.4)",
           spend_hint(spent, c[:3]))


def tiny_budget(ctx) -> None:
    probe, _ = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=0)
    budget = costs(probe)[0] / 2
    out, (subtype, spent, calls) = run(ctx, ENDLESS, max_budget_usd=budget)
    expect(len(out.requests) == 1 and not out.tool_calls,
           f"a budget below the first response's cost: {len(out.requests)} calls, {len(out.tool_calls)} tools; "
           "expected 1 and 0",
           CHECK_BEFORE_TOOLS if len(out.requests) == 1 else NO_BUDGET if len(out.requests) == 11 else "")
    expect(subtype == "error_max_budget_usd", f"ended {subtype!r}; expected 'error_max_budget_usd'",
           subtype_hint(subtype))


def final_response(ctx) -> None:
    probe, _ = run(ctx, "aurora_run", max_budget_usd=1.0)
    c = costs(probe)
    expect(len(c) == 3, f"a calibration run of Aurora Run made {len(c)} calls; expected 3")
    budget = c[0] + c[1] + c[2] / 2  # reached only by the third response, the answer
    out, (subtype, spent, calls) = run(ctx, "aurora_run", max_budget_usd=budget)
    expect(len(out.requests) == 3 and subtype == "success", f"a budget reached only by the final answer: "
           f"{len(out.requests)} calls, ended {subtype!r}; expected 3 calls and 'success'",
           FINAL_AS_BUDGET if subtype == "error_max_budget_usd" and len(out.requests) == 3 else "")
    expect(calls == 3, f"reported {calls} calls; 3 were made")
    expect(spent is not None and math.isclose(spent, sum(c), rel_tol=1e-9),
           f"reported ${spent}; the three responses, the final one included, cost ${sum(c):.8f}",
           spend_hint(spent, c))


def t_zero(ctx) -> None:
    out, (subtype, _, calls) = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=0)
    expect(len(out.requests) == 1 and not out.tool_calls,
           f"max_turns=0: {len(out.requests)} calls and {len(out.tool_calls)} tools; expected 1 and 0", T_ZERO)
    expect(subtype == "error_max_turns", f"max_turns=0 with a tool request ended {subtype!r}", subtype_hint(subtype))
    out, (subtype, _, _) = run(ctx, "one_shot", max_budget_usd=1.0, max_turns=0)
    expect(subtype == "success" and len(out.requests) == 1, f"max_turns=0 with an immediate answer ended {subtype!r}",
           T_ZERO)


def growth(ctx) -> None:
    for s, turns in ((5_000, [2_000] * 9), (8_000, [1_500, 1_500, 40_000] + [1_500] * 6), (8_000, [1_500] * 9),
                     (300, [])):
        want = [s + sum(turns[:k]) for k in range(len(turns) + 1)]
        out = ctx.call(s, turns)
        returned(out)
        expect(out.value == want, f"input_tokens({s}, {turns}) returned {out.value}; expected {want}", LINEAR)


def matches_the_api(ctx) -> None:
    """Prop. 5.2 on what the local API reports for Aurora Run: s from call 1, a_i + r_i counted from the messages."""
    result = get("aurora_run").run()
    history = result.messages
    s = result.usages[0]["input_tokens"]
    turns = [message_tokens(history[i]) + message_tokens(history[i + 1]) for i in range(1, len(history) - 1, 2)]
    out = ctx.call(s, turns)
    returned(out)
    reported = [u["input_tokens"] for u in result.usages]
    expect(out.value == reported, f"for Aurora Run the API reported n_k = {reported}; input_tokens gave {out.value}",
           LINEAR)


def window(ctx) -> None:
    for args, want in (((200_000, 5_000, 2_000), 98), ((13_000, 5_000, 3_000), 3), ((10_000, 10_000, 500), 1),
                       ((9_000, 10_000, 500), 0)):
        out = ctx.call(*args)
        returned(out)
        expect(out.value == want, f"max_calls{args} returned {out.value}; expected {want}", FLOOR)


def worst(ctx) -> None:
    for budget, c_max, delta in ((10.0, 3.0, 0.5), (10.0, 20.0, 1.0), (1.0, 0.25, 0.1), (0.05, 0.0125, 0.001)):
        out = ctx.call(budget, c_max, delta)
        returned(out)
        seq = out.value if isinstance(out.value, list) else []
        what = f"worst_costs({budget}, {c_max}, {delta}) = {seq}"
        expect(seq and all(isinstance(c, (int, float)) and 0 < c <= c_max + 1e-12 for c in seq),
               f"{what}: every cost must be positive and at most c_max", SPLIT)
        totals = [sum(seq[:k]) for k in range(1, len(seq) + 1)]
        expect(all(t < budget for t in totals[:-1]) and totals[-1] >= budget,
               f"{what}: the budget must be reached by the last cost only")
        expect(math.isclose(totals[-1], budget + c_max - delta, rel_tol=1e-9),
               f"{what}: the stop lands at {totals[-1]}, expected B + c_max - delta = {budget + c_max - delta}")


def user_turns(ctx) -> None:
    uses = [tool_use("toolu_1", "search", {"query": "Aurora Run"}),
            tool_use("toolu_2", "search", {"query": "Mara Voss"})]
    results = [tool_result("toolu_1", "page 1"), tool_result("toolu_2", "page 2", is_error=True)]
    for notes in (["Also check the novelist."], [], ["One.", "Two."]):
        out = ctx.call(results, notes)
        returned(out)
        messages = [{"role": "user", "content": "Go."}, {"role": "assistant", "content": uses}, out.value]
        found = violations(messages)
        expect(not found, f"with notes {notes}: {found[0] if found else ''}", TEXT_FIRST)
        try:
            validate_request({"model": MODEL, "max_tokens": 100, "messages": messages})
        except APIError as e:
            raise CheckFailed(f"with notes {notes}: the API rejects it: {e.message}", TEXT_FIRST) from None
        texts = [b.get("text") for b in out.value["content"] if b.get("type") == "text"]
        expect(texts == notes, f"with notes {notes}: the text blocks are {texts}")


EXERCISES = [
    Exercise("budget_loop", "budget_loop", "Report how a budgeted run ended", [
        Check("Aurora Run under a large budget: success, the spend is the three responses' cost", success),
        Check("the budget is checked after each response, before its tools (Prop. 5.4)", after_response),
        Check("a budget below one response's cost: one call, no tools", tiny_budget),
        Check("a final answer that reaches the budget is still a success, its cost counted", final_response),
        Check("exercise 10.1: max_turns=0 is one call and no tools", t_zero),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("input_tokens", "input_tokens", "Input tokens per call (Prop. 5.2)", [
        Check("example 5.3 and exercise 10.3", growth),
        Check("the same numbers as the local API's usage for Aurora Run", matches_the_api),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("max_calls", "max_calls", "The window bound", [
        Check("K <= (W - s)/c + 1 in whole calls", window),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("worst_costs", "worst_costs", "Exercise 10.4: the overshoot bound is tight", [
        Check("costs at most c_max that stop at B + c_max - delta", worst),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("user_turn", "user_turn", "Exercise 10.2: results first, then text", [
        Check("the user message keeps P2 and the API accepts it", user_turns),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
]
