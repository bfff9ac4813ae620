"""Lesson 09, guards: a repeated identical call and a wall-clock deadline stop the loop (study
guide's five guards).

repeated_call(calls, max_repeats=3) -> int | None
  calls is a list of [name, input]; the index of the call that makes max_repeats identical calls in
  a row (same name, equal input), or None.
guarded_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3, timeout_s=None,
             clock=time.monotonic) -> (subtype, answer)
  the loop of lesson 03 with two more guards: the call that makes max_repeats in a row is answered
  with an is_error warning instead of running, and the same call first in the next response stops
  the loop ("error_repeated_call"); clock() - start >= timeout_s before each call and before running
  tools stops it ("error_timeout"); otherwise "success", "error_max_turns", or the stop reason.
turn_log(client, model, tools, run_tool, prompt, *, max_turns=10) -> list[dict]
  the loop of lesson 03, returning one record per model call: {"call": k (1-based), "stop_reason",
  "tool_uses": [{"id", "name", "input"}], "results": [{"tool_use_id", "is_error", "preview"}] (the
  first 80 characters of each result's content; [] when no tools ran), "input_tokens",
  "output_tokens"} (that call's usage, not running totals).

Each rule is one sentence of the exercise's text, judged against the reference (solutions/09_...) on
generated cases. The deadline is judged on CLOCK, a clock that only the model moves (10 s per
response): exact, on every machine.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ....api import Turn
from ....contract.exercise import CLOCK
from ....i18n import deferred, tr
from ....scenarios import call
from ..cases import ANSWERS, QUERIES, TWO_TEXTS, Step, loop_case, max_tokens_free, pick, scripts
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/09_guards_and_observability.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l09_*), named only when a student's function
# does exactly that
IN_A_ROW = deferred("counting repeats anywhere in the history: only identical calls in a row are a "
                    "loop")
SAME_INPUT = deferred("comparing inputs by their text: {'a': 1, 'b': 2} and {'b': 2, 'a': 1} are "
                      "the same input")
NAME_ONLY = deferred("comparing tool names only: the same tool with another input is progress")
REPEAT_RUN = deferred("running the call that makes max_repeats in a row: it is answered with a "
                      "warning instead")
STOPS_AT_ONCE = deferred("stopping at the first repeat, as lesson 09 does: the changed rule warns "
                         "once and lets the model go on")
WARNING_NOT_ERROR = deferred("a warning without is_error: true: the repeated call was not run, so "
                             "its result is an error")
DEADLINE = deferred("checking the deadline only before running tools: check it before each call "
                    "too, the first included")
TOOLS_AFTER_DEADLINE = deferred("not checking the deadline before running tools: the model may "
                                "have used it up")
DEADLINE_PASSED = deferred("stopping only once the deadline is passed: clock() - start >= "
                           "timeout_s, so a deadline exactly reached stops the loop too")
CAPPED_TOOLS_RUN = deferred("running the tools of the response after the last allowed turn: at the "
                            "cap the loop ends before running them")
TOKENS_TOTAL = deferred("logging running token totals: each record holds its own call's usage")
RESULTS_MISSING = deferred("not logging the results with their ids and is_error: "
                           "the tool_result stream shows whether the environment cooperated")
RESULTS_SHIFTED = deferred("filing each call's results under the next call's record: results "
                           "belong to the record of the call whose tool_uses they answer")

# --- repeated_call
# ------------------------------------------------------------------------------------

A, B, C = ["search", {"q": "a"}], ["search", {"q": "b"}], ["read", {"q": "a"}]


def streak_cases() -> list[Case]:
    """Every sequence of up to 5 calls drawn from two searches and a read of the same input, under
    max_repeats 1 to 3: a fixed sample, the shortest first."""
    made = [(list(seq), n) for length in range(6)
            for seq in itertools.product((A, B, C), repeat=length)
            for n in (3, 2, 1)]
    defaults = [Case(f"repeated_call({calls})", (calls,))
                for calls in ([A, A, A], [A, A], [A, B, B, B, A])]
    return [Case(f"repeated_call({calls}, {n})", (calls, n)) for calls,
            n in pick(made, 40, keep=4, seed=9)] + defaults


def value_cases() -> list[Case]:
    """Inputs equal as values but written in another key order, nested, or of another type."""
    one, other = {"q": "a", "n": 1}, {"n": 1, "q": "a"}
    nested, nested_other = {"q": {"x": 1, "y": [1, 2]}}, {"q": {"y": [1, 2], "x": 1}}
    made = [([["search", one], ["search", other]], 2),
            ([["search", one], ["search", other], ["search", one]], 3),
            ([["search", nested], ["search", nested_other]], 2),
            ([["search", {"q": 1}], ["search", {"q": "1"}]], 2),
            ([["search", one], ["read", other]], 2), ([], 3), ([["search", {}]] * 3, 3)]
    return [Case(f"repeated_call({calls}, {n})", (calls, n)) for calls, n in made]


# --- guarded_loop
# --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Searches(Step):
    """A response asking for searches of the given pages (indices into QUERIES), in order."""

    pages: tuple[int, ...] = ()

    def turn(self) -> Turn:
        return Turn([call("search", query=QUERIES[i]) for i in self.pages])

    def words(self) -> str:
        return tr("asks for {searches}").format(
            searches=" + ".join(f"search {QUERIES[i]!r}" for i in self.pages))


def S(*pages: int) -> Searches:
    return Searches(pages=pages)


STUCK = (S(0), S(0), S(0), S(0), S(0))  # the same search every time
PROGRESS = (S(0), S(1), S(2, 3), ANSWERS)  # other searches every time, three calls, then the answer
LOOP = (Step(("search",)), Step(("search", "search")), Step(("broken",)),
        Step(("search",), thinking=True), Step(("search",), text="Searching."))
ENDS = (ANSWERS, Step(text="1974", thinking=True), Step(stop="refusal"), Step(stop="pause_turn"))


def plain_cases() -> list[Case]:
    """Runs of up to three tool-use turns (parallel calls, a tool that raises, thinking) and every
    ending, with no repeat that counts; an answer in two text blocks."""
    return [loop_case(s, max_repeats=10) for s in pick(scripts(list(LOOP), 3, end=ENDS), 7, keep=4,
                                                       seed=3)] + \
        [loop_case((TWO_TEXTS,), max_repeats=10)]


def warning_cases() -> list[Case]:
    """The call that makes max_repeats in a row, across responses and within one, then a model that
    goes on."""
    made = [((S(0), S(0), S(0), ANSWERS), 3), ((S(0), S(0), S(0), S(1), ANSWERS), 3),
            ((S(0), S(0), S(0), S(1), S(0), ANSWERS), 3), ((S(0, 0, 0), ANSWERS), 3),
            ((S(0, 0), S(0, 1), ANSWERS), 3),
            ((S(0), S(1), S(0), S(1), ANSWERS), 2), ((S(0), S(0), ANSWERS), 2),
            ((S(0), ANSWERS), 1), ((S(0), S(0), S(0), S(1, 0), ANSWERS), 3)]
    return [loop_case(s, max_repeats=n) for s, n in made]


def stuck_cases() -> list[Case]:
    """Warned, and the same call again first in the very next response."""
    made = [(STUCK, 3), ((S(0), S(0), S(0, 1)), 2), ((S(0), S(0), S(0), S(0, 0)), 3),
            ((S(0), S(0), ANSWERS), 1),
            ((S(0, 0, 0), S(0)), 3), ((S(0), S(0), S(0), S(1), S(1), S(1), S(1)), 3),
            ((S(0), S(0), Step(("search", "broken"))), 2)]
    return [loop_case(s, max_repeats=n) for s, n in made]


def deadline_cases() -> list[Case]:
    """Deadlines on the model's clock: none, 0, exactly reached by each response, between two,
    reached by the final answer; and a far one on the real clock."""
    made = [loop_case(PROGRESS, timeout_s=t, clock=CLOCK) for t in (None, 10, 0, 5, 20, 40, 45)]
    return made + [loop_case((S(0), ANSWERS), timeout_s=20, clock=CLOCK),
                   loop_case(PROGRESS, timeout_s=3600)]


def order_cases() -> list[Case]:
    """Two or three guards reached by the same response."""
    return [loop_case(STUCK, timeout_s=40, clock=CLOCK), loop_case(STUCK, max_turns=3),
            loop_case(PROGRESS, max_turns=1, timeout_s=20, clock=CLOCK),
            loop_case(STUCK, max_turns=3, timeout_s=40, clock=CLOCK)]


WANDERS = (S(0), S(1)) * 6  # twelve tool-use turns, never the same search twice in a row


def cap_cases() -> list[Case]:
    return [loop_case(PROGRESS, max_turns=n) for n in (0, 1, 2, 3)] + [
        loop_case((S(0, 1), S(2)), max_turns=1),
        loop_case(WANDERS),
        loop_case(WANDERS[:10]),
    ]


LOOP_ASPECTS = ("requests", "tool_calls", "value")

# --- turn_log
# ------------------------------------------------------------------------------------------


def log_cases(raising: bool = True) -> list[Case]:
    """Runs of up to three tool-use turns and every ending, some cut by max_turns (0 to 2); a paused
    turn, which lesson 03's loop ends as it ends a cut one."""
    steps = list(LOOP) if raising else [s for s in LOOP if "broken" not in s.calls]
    found = pick(scripts(steps, 4, end=ENDS), 7, keep=3, seed=5)
    return [
        loop_case(s, **({"max_turns": k % 3} if k % 2 else {})) for k, s in enumerate(found)
    ] + [loop_case((S(0), Step(text="Searching...", stop="pause_turn")))]


def capped_log_cases() -> list[Case]:
    """log_cases, and a model that asks for tools past the default cap."""
    return log_cases() + [loop_case(WANDERS)]


def fields(*names: str):
    """A `loose` keeping only these fields of each record."""
    def loose(log):
        if not isinstance(log, list):
            return log
        return [{k: r.get(k) for k in names} if isinstance(r, dict) else r for r in log]

    return loose


def logged_results(log):
    """A `loose` keeping each record's results, an is_error result's preview left free (its wording
    is yours)."""
    def one(result):
        return (
            {**result, "preview": "…"}
            if isinstance(result, dict) and result.get("is_error")
            else result
        )

    kept = fields("results")(log)
    if not isinstance(kept, list):
        return kept
    return [{"results": [one(x) for x in r["results"]]} if isinstance(r, dict)
            and isinstance(r.get("results"), list)
            else r for r in kept]


EXERCISES = [
    exercise("repeated_call", "repeated_call", deferred("Detecting a repeated identical call"),
             NOTEBOOK, [
        Rule(deferred("the index of the call that makes max_repeats identical calls in a row, or "
                      "None"),
             streak_cases),
        Rule(deferred("identical: the same name and an equal input, compared as values"),
             value_cases, points=0.5),
        Rule(deferred("calls is left unchanged"), lambda: streak_cases() + value_cases(),
             ("after",), points=0.5),
    ]),
    exercise("guarded_loop", "guarded_loop",
             deferred("A repeat rule that warns once, and a deadline"), NOTEBOOK, [
        Rule(deferred("as lesson 03: success with the text on end_turn, (stop_reason, None) on any "
                      "other stop reason, a tool that raises becomes an is_error result"),
             plain_cases, LOOP_ASPECTS, loose=max_tokens_free),
        Rule(deferred("the call that makes max_repeats identical calls in a row is not run: an "
                      "is_error result answers it, and the loop goes on"), warning_cases,
             LOOP_ASPECTS, loose=max_tokens_free),
        Rule(deferred("warned, and the same call first in the very next response: "
                      "error_repeated_call before running anything"), stuck_cases, LOOP_ASPECTS,
             loose=max_tokens_free),
        Rule(deferred("before each call and before running tools: error_timeout once clock() - "
                      "start >= timeout_s"),
             deadline_cases, LOOP_ASPECTS, loose=max_tokens_free),
        Rule(deferred("after the last allowed turn, a response asking for tools ends the run as "
                      "error_max_turns, its tools not run"), cap_cases, LOOP_ASPECTS,
             loose=max_tokens_free),
        Rule(deferred("when one response reaches several guards: the repeated call first, then the "
                      "deadline, then the turn cap"), order_cases, LOOP_ASPECTS,
             loose=max_tokens_free),
    ]),
    exercise("turn_log", "turn_log", deferred("What to log each turn"), NOTEBOOK, [
        Rule(deferred("the loop of lesson 03: the same requests, and at the cap the tools are not "
                      "run"),
             capped_log_cases,
             ("requests", "tool_calls"), loose=max_tokens_free),
        Rule(
            deferred("one record per model call: call (1, 2, ...) and that response's stop_reason"),
            log_cases, loose=fields("call", "stop_reason")),
        Rule(deferred("tool_uses: each tool_use of the response with its id, name and input"),
             log_cases,
            loose=fields("tool_uses")),
        Rule(deferred("results: each result's tool_use_id, is_error and the first 80 characters of "
                      "its content; [] when no tools ran"), log_cases, loose=logged_results),
        Rule(deferred("input_tokens and output_tokens: that call's own usage"),
             lambda: log_cases(raising=False),
            loose=fields("input_tokens", "output_tokens")),
    ]),
]
