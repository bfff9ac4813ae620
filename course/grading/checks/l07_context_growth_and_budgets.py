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
from ...i18n import deferred, tr
from ...messages import tool_result, tool_use, violations
from ...pricing import cost_usd
from ...scenarios import get
from ..exercise import Check, CheckFailed, Exercise
from .common import expect, loop_args, returned
from .l03_the_first_loop import ENDLESS

CHECK_BEFORE_TOOLS = deferred("checking the budget before the next call instead of after each response: "
                              "the tools of the response that crossed it ran")
NO_BUDGET = deferred("never stopping for the budget")
LAST_COST = deferred("leaving the last response's cost out of the spend: it is paid once the response arrives")
FINAL_AS_BUDGET = deferred("checking the budget before stop_reason: a response without tool use ends the run as "
                           "success")
SUBTYPE = deferred("the wrong subtype: success, error_max_budget_usd or error_max_turns, as the Agent SDK names them")
T_ZERO = deferred("exercise 10.1: with max_turns=0 the loop makes exactly one call and runs no tools")
LINEAR = deferred("n_k = s + the sum of a_i + r_i over the turns before call k (Prop. 5.2)")
FLOOR = deferred("the window bound K <= (W - s)/c + 1 counts whole calls: round down")
SPLIT = deferred("each cost must be at most c_max: split B - delta into pieces no bigger than c_max")
TEXT_FIRST = deferred("exercise 10.2: text before the tool_result blocks breaks P2")


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


def over_budget(subtype) -> None:
    expect(subtype == "error_max_budget_usd",
           tr("ended {subtype!r}; expected 'error_max_budget_usd'").format(subtype=subtype), subtype_hint(subtype))


def success(ctx) -> None:
    out, (subtype, spent, calls) = run(ctx, "aurora_run", max_budget_usd=1.0)
    expect(subtype == "success",
           tr("Aurora Run under a $1 budget ended {subtype!r}; expected 'success'").format(subtype=subtype),
           subtype_hint(subtype))
    expect(calls == len(out.requests) == 3,
           tr("reported {calls} calls, {made} were made; expected 3").format(calls=calls, made=len(out.requests)))
    expect(spent is not None and math.isclose(spent, sum(costs(out)), rel_tol=1e-9),
           tr("reported ${spent} spent; the three responses cost ${cost:.8f}").format(spent=spent,
                                                                                      cost=sum(costs(out))),
           spend_hint(spent, costs(out)))


def after_response(ctx) -> None:
    probe, _ = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=4)
    c = costs(probe)
    expect(len(c) == 5, tr("a calibration run with max_turns=4 made {n} calls; expected 5").format(n=len(c)))
    budget = c[0] + c[1] + c[2] / 2  # crossed by the third response
    out, (subtype, spent, calls) = run(ctx, ENDLESS, max_budget_usd=budget, max_turns=10)
    n = len(out.requests)
    expect(n >= 3, tr("{n} calls; the budget is reached only by the third response").format(n=n))
    expect(n == 3, tr("{n} calls with a budget reached by the third response; expected 3").format(n=n),
           NO_BUDGET if n == 11 else "")
    expect(len(out.tool_calls) == 2,
           tr("{n} tools ran; the third response's tool must not run").format(n=len(out.tool_calls)),
           CHECK_BEFORE_TOOLS)
    over_budget(subtype)
    expect(spent is not None and math.isclose(spent, sum(c[:3]), rel_tol=1e-9) and spent < budget + max(c),
           tr("reported ${spent}; expected the three responses' ${cost:.8f}, under B + c_max (Prop. 5.4)").format(
               spent=spent, cost=sum(c[:3])),
           spend_hint(spent, c[:3]))


def tiny_budget(ctx) -> None:
    probe, _ = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=0)
    budget = costs(probe)[0] / 2
    out, (subtype, spent, calls) = run(ctx, ENDLESS, max_budget_usd=budget)
    n = len(out.requests)
    expect(n == 1 and not out.tool_calls,
           tr("a budget below the first response's cost: {calls} calls, {tools} tools; expected 1 and 0").format(
               calls=n, tools=len(out.tool_calls)),
           CHECK_BEFORE_TOOLS if n == 1 else NO_BUDGET if n == 11 else "")
    over_budget(subtype)


def final_response(ctx) -> None:
    probe, _ = run(ctx, "aurora_run", max_budget_usd=1.0)
    c = costs(probe)
    expect(len(c) == 3, tr("a calibration run of Aurora Run made {n} calls; expected 3").format(n=len(c)))
    budget = c[0] + c[1] + c[2] / 2  # reached only by the third response, the answer
    out, (subtype, spent, calls) = run(ctx, "aurora_run", max_budget_usd=budget)
    n = len(out.requests)
    expect(n == 3 and subtype == "success",
           tr("a budget reached only by the final answer: {n} calls, ended {subtype!r}; expected 3 calls and "
              "'success'").format(n=n, subtype=subtype),
           FINAL_AS_BUDGET if subtype == "error_max_budget_usd" and n == 3 else "")
    expect(calls == 3, tr("reported {calls} calls; 3 were made").format(calls=calls))
    expect(spent is not None and math.isclose(spent, sum(c), rel_tol=1e-9),
           tr("reported ${spent}; the three responses, the final one included, cost ${cost:.8f}").format(
               spent=spent, cost=sum(c)),
           spend_hint(spent, c))


def t_zero(ctx) -> None:
    out, (subtype, _, calls) = run(ctx, ENDLESS, max_budget_usd=1.0, max_turns=0)
    expect(len(out.requests) == 1 and not out.tool_calls,
           tr("max_turns=0: {calls} calls and {tools} tools; expected 1 and 0").format(
               calls=len(out.requests), tools=len(out.tool_calls)), T_ZERO)
    expect(subtype == "error_max_turns",
           tr("max_turns=0 with a tool request ended {subtype!r}").format(subtype=subtype), subtype_hint(subtype))
    out, (subtype, _, _) = run(ctx, "one_shot", max_budget_usd=1.0, max_turns=0)
    expect(subtype == "success" and len(out.requests) == 1,
           tr("max_turns=0 with an immediate answer ended {subtype!r}").format(subtype=subtype), T_ZERO)


def growth(ctx) -> None:
    for s, turns in ((5_000, [2_000] * 9), (8_000, [1_500, 1_500, 40_000] + [1_500] * 6), (8_000, [1_500] * 9),
                     (300, [])):
        want = [s + sum(turns[:k]) for k in range(len(turns) + 1)]
        out = ctx.call(s, turns)
        returned(out)
        expect(out.value == want, tr("input_tokens({s}, {turns}) returned {got}; expected {want}").format(
            s=s, turns=turns, got=out.value, want=want), LINEAR)


def matches_the_api(ctx) -> None:
    """Prop. 5.2 on what the local API reports for Aurora Run: s from call 1, a_i + r_i counted from the messages."""
    result = get("aurora_run").run()
    history = result.messages
    s = result.usages[0]["input_tokens"]
    turns = [message_tokens(history[i]) + message_tokens(history[i + 1]) for i in range(1, len(history) - 1, 2)]
    out = ctx.call(s, turns)
    returned(out)
    reported = [u["input_tokens"] for u in result.usages]
    expect(out.value == reported,
           tr("for Aurora Run the API reported n_k = {reported}; input_tokens gave {got}").format(
               reported=reported, got=out.value), LINEAR)


def window(ctx) -> None:
    for args, want in (((200_000, 5_000, 2_000), 98), ((13_000, 5_000, 3_000), 3), ((10_000, 10_000, 500), 1),
                       ((9_000, 10_000, 500), 0)):
        out = ctx.call(*args)
        returned(out)
        expect(out.value == want, tr("max_calls{args} returned {got}; expected {want}").format(
            args=args, got=out.value, want=want), FLOOR)


def worst(ctx) -> None:
    for budget, c_max, delta in ((10.0, 3.0, 0.5), (10.0, 20.0, 1.0), (1.0, 0.25, 0.1), (0.05, 0.0125, 0.001)):
        out = ctx.call(budget, c_max, delta)
        returned(out)
        seq = out.value if isinstance(out.value, list) else []
        what = f"worst_costs({budget}, {c_max}, {delta}) = {seq}"
        expect(seq and all(isinstance(c, (int, float)) and 0 < c <= c_max + 1e-12 for c in seq),
               tr("{what}: every cost must be positive and at most c_max").format(what=what), SPLIT)
        totals = [sum(seq[:k]) for k in range(1, len(seq) + 1)]
        expect(all(t < budget for t in totals[:-1]) and totals[-1] >= budget,
               tr("{what}: the budget must be reached by the last cost only").format(what=what))
        expect(math.isclose(totals[-1], budget + c_max - delta, rel_tol=1e-9),
               tr("{what}: the stop lands at {total}, expected B + c_max - delta = {bound}").format(
                   what=what, total=totals[-1], bound=budget + c_max - delta))


def user_turns(ctx) -> None:
    uses = [tool_use("toolu_1", "search", {"query": "Aurora Run"}),
            tool_use("toolu_2", "search", {"query": "Mara Voss"})]
    results = [tool_result("toolu_1", "page 1"), tool_result("toolu_2", "page 2", is_error=True)]
    for notes in (["Also check the novelist."], [], ["One.", "Two."]):
        out = ctx.call(results, notes)
        returned(out)
        messages = [{"role": "user", "content": "Go."}, {"role": "assistant", "content": uses}, out.value]
        found = violations(messages)
        expect(not found, tr("with notes {notes}: {violation}").format(
            notes=notes, violation=found[0] if found else ""), TEXT_FIRST)
        try:
            validate_request({"model": MODEL, "max_tokens": 100, "messages": messages})
        except APIError as e:
            raise CheckFailed(tr("with notes {notes}: the API rejects it: {message}").format(
                notes=notes, message=e.message), TEXT_FIRST) from None
        texts = [b.get("text") for b in out.value["content"] if b.get("type") == "text"]
        expect(texts == notes, tr("with notes {notes}: the text blocks are {texts}").format(notes=notes, texts=texts))


EXERCISES = [
    Exercise("budget_loop", "budget_loop", deferred("Report how a budgeted run ended"), [
        Check(deferred("Aurora Run under a large budget: success, the spend is the three responses' cost"), success),
        Check(deferred("the budget is checked after each response, before its tools (Prop. 5.4)"), after_response),
        Check(deferred("a budget below one response's cost: one call, no tools"), tiny_budget),
        Check(deferred("a final answer that reaches the budget is still a success, its cost counted"), final_response),
        Check(deferred("exercise 10.1: max_turns=0 is one call and no tools"), t_zero),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("input_tokens", "input_tokens", deferred("Input tokens per call (Prop. 5.2)"), [
        Check(deferred("example 5.3 and exercise 10.3"), growth),
        Check(deferred("the same numbers as the local API's usage for Aurora Run"), matches_the_api),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("max_calls", "max_calls", deferred("The window bound"), [
        Check(deferred("K <= (W - s)/c + 1 in whole calls"), window),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("worst_costs", "worst_costs", deferred("Exercise 10.4: the overshoot bound is tight"), [
        Check(deferred("costs at most c_max that stop at B + c_max - delta"), worst),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
    Exercise("user_turn", "user_turn", deferred("Exercise 10.2: results first, then text"), [
        Check(deferred("the user message keeps P2 and the API accepts it"), user_turns),
    ], notebook="solutions/07_context_growth_and_budgets.ipynb"),
]
