"""Lesson 07, context growth and budgets: Prop. 5.2, example 5.3, Prop. 5.4 and exercises 10.1-10.4.

budget_loop(client, model, tools, run_tool, prompt, *, max_budget_usd, max_turns=10) -> (subtype,
spent_usd, calls)
input_tokens(s, turns) -> [n_1, ..., n_K]   n_k = s + sum of turns[:k-1], K = len(turns) + 1
max_calls(window, s, c) -> int              the most calls whose input fits the window when each
turn adds c
worst_costs(budget, c_max, delta) -> list   costs <= c_max for which the budget stop lands at budget
+ c_max - delta
user_turn(results, notes) -> dict           the user message of a turn: the tool_result blocks, then
the notes as text

Each rule is one sentence of the exercise's text, judged against the reference (solutions/07_...) on
generated cases.
"""
from __future__ import annotations

import math

from ....client import MODEL, MODELS
from ....i18n import deferred, tr
from ....messages import tool_result
from ....pricing import cost_usd
from .. import reference
from ..cases import ANSWERS, ASKS, Step, loop_case, max_tokens_free, pick, scripts, with_model
from ..oracle import Case, Rule, exercise, trusted_call

NOTEBOOK = "solutions/07_context_growth_and_budgets.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l07_*), named only when a student's function
# does exactly that
CHECK_BEFORE_TOOLS = deferred("checking the budget before the next call instead of after each "
                              "response: the tools of the response that crosses it run, and a "
                              "budget spent from the start (0) makes no call at all")
LAST_COST = deferred("leaving the last response's cost out of the spend: it is paid once the "
                     "response arrives")
FINAL_AS_BUDGET = deferred("checking the budget before stop_reason: a response without tool use "
                           "ends the run as success")
STRICTLY_OVER = deferred("stopping only once the spend is past the budget: the text says spent_usd "
                         ">= max_budget_usd")
CAP_FIRST = deferred("checking the turn cap before the budget: a response that reaches both is a "
                     "budget stop")
LINEAR = deferred("n_k = s + the sum of a_i + r_i over the turns before call k (Prop. 5.2)")
FIRST_CALL = deferred("n_1 = s: the first call's input is s, with no turn before it")
NO_PLUS_ONE = deferred("(W - s) // c counts the turns that fit; the calls are one more, the first "
                       "one included")
FLOOR = deferred("the window bound K <= (W - s)/c + 1 counts whole calls: round down")
SPLIT = deferred("each cost must be at most c_max: split B - delta into pieces no bigger than "
                 "c_max")
TEXT_FIRST = deferred("exercise 10.2: text before the tool_result blocks breaks P2")

# --- budget_loop
# --------------------------------------------------------------------------------------

# no tool that raises: an error result's wording is the student's own, and it changes the tokens, so
# the costs
LOOP = (ASKS, Step(("search", "search")), Step(("search",), thinking=True),
        Step(("search",), text="Searching."))
ENDS = (ANSWERS, Step(text="1974", thinking=True))


def costs(case: Case) -> list[float]:
    """What each response of the reference's run on `case` cost: where a budget boundary lies."""
    out = trusted_call(reference.function(NOTEBOOK, "budget_loop"), case)
    return [cost_usd(MODEL, r["usage"]) for r in out.replies]


def spend_cases() -> list[Case]:
    """Runs of 1 to 4 calls under a budget no run reaches: the spend and the count of calls; priced
    for the model given (Sonnet's prices, not the default model's)."""
    return [loop_case(s, max_budget_usd=1.0) for s in pick(scripts(list(LOOP), 4, end=ENDS), 8,
                                                           keep=4)] + \
        [with_model(loop_case((ASKS, ANSWERS), max_budget_usd=1.0), MODELS["sonnet"])]


def no_tool_use_cases() -> list[Case]:
    """The budget reached by the final response, and a refusal (no tool use either: success), after
    a tool turn."""
    return boundary_cases(final=True) + [loop_case((ASKS, Step(stop="refusal")),
                                                   max_budget_usd=1.0)]


def boundary_cases(final: bool) -> list[Case]:
    """Budgets exactly reached, or crossed, by response k: by the final answer (`final`) or by one
    asking for tools; with the turn cap reached by the same response too."""
    made = []
    for script in pick(scripts(list(LOOP), 4, end=ENDS), 5, keep=2, seed=1):
        spent = 0.0
        for k, c in enumerate(costs(loop_case(script, max_budget_usd=1.0))):
            spent += c
            if (k == len(script) - 1) == final:
                for budget in (spent, spent - c / 2):
                    made.append(loop_case(script, max_budget_usd=budget))
                    if not final:
                        made.append(loop_case(script, max_budget_usd=budget, max_turns=k))
                break
    return made


def cap_cases() -> list[Case]:
    """The turn cap reached before any budget: max_turns 1 and 2 on runs that ask for more."""
    long = (ASKS, Step(("search", "search")), ASKS, ANSWERS)
    return [loop_case(s, max_budget_usd=1.0, max_turns=t) for t in (1, 2) for s in (long, long[1:])]


def error_cases() -> list[Case]:
    """A tool that raises: its is_error result goes back like any other (the spend then depends on
    its wording)."""
    runs = ((Step(("broken",)), ANSWERS), (Step(("search", "broken")), ASKS, ANSWERS))
    return [loop_case(s, max_budget_usd=1.0) for s in runs]


def zero_cases() -> list[Case]:
    runs = ((ASKS, ANSWERS), (ANSWERS,), (Step(("search", "search")),))
    return [loop_case(s, max_budget_usd=b, max_turns=0) for s in runs for b in (1.0, 0.0)]


LOOP_ASPECTS = ("requests", "tool_calls", "value")


def subtype_and_calls(value):
    """(subtype, calls) of a returned triple: with an error result in the run, the spend depends on
    its wording."""
    return [value[0], value[2]] if isinstance(value, list) and len(value) == 3 else value

# --- input_tokens, max_calls, worst_costs, user_turn
# ---------------------------------------------------


def growth_cases() -> list[Case]:
    """Example 5.3, exercise 10.3's shapes, no turn at all, growth that varies."""
    made = [(300, []), (5_000, [2_000]), (5_000, [2_000] * 9),
            (8_000, [1_500, 1_500, 40_000] + [1_500] * 6), (0, [0, 7]), (1, [1, 2, 3, 4])]
    return [Case(f"input_tokens({s}, {turns})", (s, turns)) for s, turns in made]


def window_cases() -> list[Case]:
    """The window just fits s, is one short of it, fits whole turns exactly, or leaves a
    remainder."""
    made = [(200_000, 5_000, 2_000), (10_000, 10_000, 500), (9_999, 10_000, 500),
            (1_000, 10_000, 500), (13_000, 5_000, 3_000),
            (11_000, 5_000, 3_000), (14_000, 5_000, 3_000), (10_500, 10_000, 500),
            (10_499, 10_000, 500), (0, 0, 1)]
    return [Case(f"max_calls{args}", args) for args in made]


def worst_cases() -> list[Case]:
    made = [(10.0, 3.0, 0.5), (10.0, 20.0, 1.0), (1.0, 0.25, 0.1), (0.05, 0.0125, 0.001),
            (3.0, 1.0, 1.0)]
    return [Case(f"worst_costs{args}", args) for args in made]


def tight(out, case: Case) -> str:
    """Exercise 10.4's property: costs in (0, c_max], the budget reached by the last one only, at B
    + c_max - delta."""
    budget, c_max, delta = case.args
    seq = out.value if isinstance(out.value, list) else None
    what = f"worst_costs{case.args} = {out.value}"
    if not seq or not all(isinstance(c, (int, float)) and not isinstance(c, bool)
                          and 0 < c <= c_max + 1e-12
                          for c in seq):
        return tr("{what}: every cost must be positive and at most c_max").format(what=what)
    totals = [sum(seq[:k]) for k in range(1, len(seq) + 1)]
    if not (all(t < budget for t in totals[:-1]) and totals[-1] >= budget):
        return tr("{what}: the budget must be reached by the last cost only").format(what=what)
    if not math.isclose(totals[-1], budget + c_max - delta, rel_tol=1e-9):
        return tr("{what}: the stop lands at {total}, expected B + c_max - delta = {bound}").format(
            what=what, total=f"{totals[-1]:.10g}", bound=f"{budget + c_max - delta:.10g}")
    return ""


def turn_cases() -> list[Case]:
    """0 to 2 results (one an error, one with block content) and 0 to 2 notes."""
    results = [tool_result("toolu_1", "page 1"), tool_result("toolu_2", "page 2", is_error=True),
               {"type": "tool_result", "tool_use_id": "toolu_3",
                "content": [{"type": "text", "text": "page 3"}]}]
    made = []
    for n in (1, 2, 3, 0):
        for notes in (["Also check the novelist."], [], ["One.", "Two."]):
            label = lambda n=n, notes=notes: tr("user_turn(results 1-{n}, notes {notes})").format(  # noqa: E731
                n=n, notes=notes
            )
            made.append(Case(label, (results[:n], notes)))
    return made


EXERCISES = [
    exercise("budget_loop", "budget_loop", deferred("Report how a budgeted run ended"), NOTEBOOK, [
        Rule(deferred("every response's cost is added to spent_usd as it arrives, the final one "
                      "included"),
             spend_cases, ("value",),
             loose={"value": lambda v: v[1] if isinstance(v, list) and len(v) == 3 else v},
             points=0.5),
        Rule(deferred("calls is the number of model calls made"), spend_cases, ("value",),
             loose={"value": lambda v: v[2] if isinstance(v, list) and len(v) == 3 else v},
             points=0.5),
        Rule(deferred("a response without tool use ends the run as success, even when its cost "
                      "reaches the budget"),
             no_tool_use_cases, LOOP_ASPECTS, loose=max_tokens_free),
        Rule(deferred("after a response asking for tools: error_max_budget_usd once spent_usd >= "
                      "max_budget_usd, else error_max_turns at the cap; its tools are not run"),
             lambda: boundary_cases(final=False) + cap_cases(), LOOP_ASPECTS,
             loose=max_tokens_free),
        Rule(deferred("a tool that raises is answered with an is_error tool_result, as in lesson "
                      "03's loop"),
             error_cases, LOOP_ASPECTS,
             loose={"requests": max_tokens_free, "value": subtype_and_calls}),
        Rule(deferred("exercise 10.1: with max_turns=0 exactly one call and no tool runs"),
             zero_cases, LOOP_ASPECTS, loose=max_tokens_free),
    ]),
    exercise("input_tokens", "input_tokens", deferred("Input tokens per call (Prop. 5.2)"),
             NOTEBOOK, [
        Rule(deferred("n_k = s + the sum of the turns before call k, one number per call; turns is "
                      "left unchanged"),
             growth_cases, ("value", "after"), points=2.0),
    ]),
    exercise("max_calls", "max_calls", deferred("The window bound"), NOTEBOOK, [
        Rule(deferred("K <= (W - s)/c + 1 in whole calls, and 0 when not even the first call fits"),
             window_cases),
    ]),
    exercise("worst_costs", "worst_costs",
             deferred("Model Exercise 10.4: the overshoot bound is tight"), NOTEBOOK, [
        Rule(deferred("costs at most c_max that stop at B + c_max - delta"), worst_cases,
             holds=tight),
    ]),
    exercise("user_turn", "user_turn", deferred("Model Exercise 10.2: results first, then text"),
             NOTEBOOK, [
        Rule(deferred("the tool_result blocks first, then one text block per note; the arguments "
                      "are left unchanged"),
             turn_cases, ("value", "after")),
    ]),
]
