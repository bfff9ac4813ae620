"""The reference is the oracle: a rule an exercise states is a Check that calls the student's
function and the shipped reference solution (solutions/) on the same generated cases, smallest
first, and compares what the exercise's text makes part of the answer.

- A `Case` is the arguments of one call, and for functions that call the model, the toy model (a
  scenario) the API answers with. Cases come from generators, in a fixed order: the same submission
  gets the same grade and the same feedback every time, on any machine.
- A `Rule`'s `aspects` say what is compared: whether it raised, every request sent in order, the
  tools run, the return value, what was printed, the arguments after the call (so an input changed
  in place shows).
- Where the text allows more than one reading, `readings` gives the other answers it accepts; where
  many answers are right (a list with a property), `holds` states the property instead of an
  equality.
- The feedback is the first case on which the two differ and the first place where they differ. A
  hint names a known mistake (course/grading/judging/mistakes) only when it is proven: on every case
  of the exercise where either the student's function or the mistake differs from the reference, the
  two do the same, and no mistake with another hint does; otherwise no cause is named.
"""
from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ...contract.exercise import Check, CheckFailed, Exercise, Outcome
from ...i18n import deferred, language, speaking, tr, tr_plural
from ...messages import content_blocks
from ..marks.mark import is_stub
from . import reference, saved_outcomes

ASPECTS = ("error", "requests", "tool_calls", "value", "stdout", "after")  # compared in this order
SHOWN = 160  # characters of a value shown in feedback
# a value longer than this is not shown beside an exception (the exception is the difference)
BRIEF = 60

# the fields that carry a block's meaning (SDK dumps add others, e.g. citations: None)
BLOCK_FIELDS = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
                "tool_result": ("type", "tool_use_id", "content", "is_error"),
                "thinking": ("type", "thinking", "signature"),
                "redacted_thinking": ("type", "data")}


@dataclass(frozen=True, eq=False)
class Case:
    """One call: its arguments (CLIENT / RUN_TOOL markers allowed) and the toy model behind the
    API."""

    # the case in a few words, for the feedback: "max_calls(10, 5, 2)", or a function
    label: str | Callable[[], str]
    # giving them in the language spoken when the feedback is written ("a model that 1) asks for
    # search ...")
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)
    # a Scenario (or its name) when the function talks to the API or runs tools
    scenario: Any = None


@dataclass(eq=False)
class Rule:
    """One sentence of an exercise's text, enforced on generated cases."""

    name: str  # the sentence, as a deferred English string (the check's name)
    cases: Callable[[], list[Case]]  # smallest first
    aspects: tuple[str, ...] = ("value",)
    # other answers the text accepts
    readings: Callable[[Outcome, Case], list[Outcome]] | None = None
    # a property instead of equality: "" when it holds
    holds: Callable[[Outcome, Case], str] | None = None
    # what the text leaves free: applied to every canonical view,
    loose: Callable[[Any], Any] | dict | None = None
    # or {aspect: function} for some aspects only
    points: float = 1.0
    hidden: bool = False
    _cases: list[Case] | None = None
    # language -> each case's description
    _labels: dict[str, list[str]] = field(default_factory=dict)

    def all_cases(self) -> list[Case]:
        """The cases, made once per process and always in English (a prompt or a tool's description
        in another language would move a budget's boundary), whatever language the report is then
        written in."""
        if self._cases is None:
            with speaking("en"):
                self._cases = list(self.cases())
        return self._cases

    def label(self, index: int) -> str:
        """Case `index` described in the language spoken now: as the cases made in that language
        describe it where they have the English case's inputs (else the English case's own label,
        which may be English)."""
        lang = language()
        if lang not in self._labels:
            spoken = self.all_cases() if lang == "en" else list(self.cases())
            if len(spoken) != len(self.all_cases()):
                spoken = self.all_cases()
            self._labels[lang] = [label(there if inputs(here) == inputs(there) else here)
                                  for here, there in zip(self.all_cases(), spoken, strict=True)]
        return self._labels[lang][index]


def inputs(case: Case) -> str:
    """What a case gives the function, written out (a scenario by its name): two cases with one are
    the same."""
    return repr((case.args, case.kwargs, getattr(case.scenario, "name", case.scenario)))


# --- what is compared
# ---------------------------------------------------------------------------------

def canonical(x: Any) -> Any:
    """A value written one way: a message's string content is one text block, a block keeps the
    fields that carry its meaning (is_error only when true), a tool_result's lone text block is its
    string, None fields go."""
    if isinstance(x, dict):
        if "role" in x and "content" in x:
            return {"role": x["role"], "content": canonical(content_blocks(x["content"]))}
        # a JSON schema's property may be named type: {"type": {"type": "string"}}
        kind = x.get("type")
        keep = BLOCK_FIELDS.get(kind) if isinstance(kind, str) else None
        if keep:
            block = {k: canonical(x[k]) for k in keep if x.get(k) is not None}
            if block.get("is_error") is False:
                del block["is_error"]
            inner = block.get("content")
            if x.get("type") == "tool_result" and isinstance(inner, list) and len(inner) == 1 \
                    and isinstance(inner[0], dict) and inner[0].get("type") == "text":
                block["content"] = inner[0].get("text")
            return block
        return {k: canonical(v) for k, v in x.items() if v is not None}
    if isinstance(x, (list, tuple)):
        return [canonical(v) for v in x]
    return x


def error_kind(error: str | None) -> str | None:
    """The exception's type: what a rule about raising compares (messages are the student's own
    words)."""
    return None if error is None else error.split(":", 1)[0]


def view(out: Outcome, aspect: str, loose: Callable[[Any], Any] | dict | None = None) -> Any:
    """What a rule compares of an outcome, written one way (`loose` then forgets what the text
    leaves free). The arguments after the call are compared as they are (no canonical form, a loose
    only when given for "after"), so every change made in place shows: a key added, a None,
    is_error: False, a string content made a list."""
    if aspect == "after":
        return (
            loose["after"](out.after) if isinstance(loose, dict) and "after" in loose else out.after
        )
    if isinstance(loose, dict):
        loose = loose.get(aspect)
    if aspect == "error":
        return error_kind(out.error)
    if aspect == "stdout":
        return out.stdout
    if aspect == "requests":
        seen = [canonical(r) for r in out.requests]
    elif aspect == "tool_calls":
        seen = [[name, canonical(input)] for name, input in out.tool_calls]
    else:
        seen = canonical(getattr(out, aspect))
    return loose(seen) if loose else seen


def error_text_free(x: Any) -> Any:
    """A `loose` for loops: an is_error tool_result's wording is the student's own (a rule of its
    own checks that it says what failed), as long as it says something: a result with no content, or
    an empty one, stays so."""
    if isinstance(x, dict):
        if x.get("type") == "tool_result" and x.get("is_error") and x.get("content"):
            return {**x, "content": "…"}
        return {k: error_text_free(v) for k, v in x.items()}
    if isinstance(x, list):
        return [error_text_free(v) for v in x]
    return x


def equal(a: Any, b: Any, exact: bool = False) -> bool:
    return difference(a, b, exact=exact) is None


def difference(a: Any, b: Any, path: str = "", exact: bool = False) -> tuple[str, Any, Any] | None:
    """The first place where a and b differ, as (path, a there, b there); None when they agree.
    Numbers agree within a relative 1e-9 (a sum taken in another order), or when `exact` only if of
    one type and equal; True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return None if a is b else (path, a, b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        same_number = type(a) is type(b) and a == b if exact else a == b or close(a, b)
        return None if same_number else (path, a, b)
    if isinstance(a, dict) and isinstance(b, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                return f"{path}.{k}" if path else k, a.get(k, MISSING), b.get(k, MISSING)
            found = difference(a[k], b[k], f"{path}.{k}" if path else str(k), exact)
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = difference(x, y, f"{path}[{i}]", exact)
            if found:
                return found
        if len(a) != len(b):
            return (
                f"{path}[{min(len(a), len(b))}]",
                a[len(b) :][:1] or MISSING,
                b[len(a) :][:1] or MISSING,
            )
        return None
    return None if a == b else (path, a, b)


def close(a: int | float, b: int | float) -> bool:
    """Within a relative 1e-9; an int too large for a float is compared exactly."""
    try:
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15)
    except OverflowError:
        return False


class Missing:
    def __repr__(self) -> str:
        return tr("nothing")


MISSING = Missing()


def shown(value: Any) -> str:
    """A value in a few characters, in Python's syntax (None, True, 'text': what the student wrote),
    a float with 10 significant digits (two sums taken in another order agree to 1e-9) without an
    exponent, cut with an ellipsis."""
    text = written(float(f"{value:.10g}")) if isinstance(value, float) else repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def written(value: Any) -> str:
    """A value in Python's syntax, exactly; a float without an exponent where it reads better so (an
    amount of money: 0.0000258, never 2.58e-05; 1e+300 stays)."""
    if not isinstance(value, float) or not math.isfinite(value) or not 1e-12 <= abs(value) < 1e16:
        return repr(value)
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


WHERE = {"error": deferred("what it raised"), "tool_calls": deferred("the tools it ran"),
         "value": deferred("the return value"), "stdout": deferred("what it printed"),
         "after": deferred("the arguments after the call")}


def describe(aspect: str, mine: Outcome, theirs: Outcome, found: tuple[str, Any, Any]) -> str:
    """One difference in words: where, then yours against the reference's."""
    path, a, b = found
    if aspect == "error":
        if a is None:
            return tr("the reference raises {error}; your function returned {value}").format(
                error=b, value=shown(canonical(mine.value)))
        if b is None:
            k = next((k for k, status in enumerate(mine.statuses) if status != 200), None)
            raised = (tr("your function raised {kind} after request {number}").format(
                kind=a, number=k + 1) +
                      # the API's message, not the SDK's dump of it
                      rejected(mine, k) if k is not None else
                      tr("your function raised {error}").format(error=shown(mine.error)[1:-1]))
            value = shown(canonical(theirs.value))
            return raised + (tr("; the reference returns {value}").format(value=value)
                             if len(value) <= BRIEF
                             else tr("; the reference returns without raising"))
        return tr("your function raised {mine}; the reference raises {theirs}").format(
            mine=a, theirs=b)
    if aspect == "requests":
        n, m = len(mine.requests), len(theirs.requests)
        k = int(path[1:path.index("]")]) if path.startswith("[") else 0
        if path.count("[") == 1 and path.endswith("]") and n != m:
            return tr_plural("your function sent {n} request; the reference sends {m}",
                             "your function sent {n} requests; the reference sends {m}", n).format(
                                 n=n, m=m) + \
                rejected(mine, min(k, n - 1))
        where = tr("request {number}, {field}").format(number=k + 1,
                                                       field=path[path.index("]") + 1:].lstrip("."))
        return tr("{where}: yours {mine}, the reference's {theirs}").format(
            where=where, mine=shown(a), theirs=shown(b)) + rejected(mine, k)
    where = tr(WHERE[aspect]) + (tr(" at {path}").format(path=path) if path else "")
    if b is MISSING:
        return tr("{where}: yours has {mine} there; the reference's has nothing").format(
            where=where, mine=shown(a))
    if a is MISSING:
        return tr("{where}: yours has nothing there; the reference's has {theirs}").format(
            where=where, theirs=shown(b)
        )
    return tr("{where}: yours {mine}, the reference's {theirs}").format(
        where=where, mine=shown(a), theirs=shown(b))


def rejected(out: Outcome, k: int) -> str:
    """'; the API answered 400: ...' when the student's request k was rejected."""
    if k < 0 or k >= len(out.statuses) or out.statuses[k] == 200:
        return ""
    message = (
        ((out.replies[k] or {}).get("error") or {}).get("message", "")
        if k < len(out.replies)
        else ""
    )
    # its last period would end the report's sentence
    return tr("; the API answered {status}: {message}").format(
        status=out.statuses[k], message=message.removesuffix("."))


def keep(out: Outcome) -> None:
    """Make view_of() remember the views of `out`, an outcome kept for the process (the reference's,
    a known mistake's): every student is compared with it."""
    _kept[id(out)] = out


def view_of(out: Outcome, aspect: str, loose: Callable[[Any], Any] | dict | None) -> Any:
    """view(), made once for a kept outcome (keep())."""
    if _kept.get(id(out)) is not out:
        return view(out, aspect, loose)
    key = (id(out), aspect, id(loose))  # a rule's loose lives as long as the rule, for the process
    if key not in _views:
        _views[key] = view(out, aspect, loose)
    return _views[key]


def first_difference(rule: Rule, mine: Outcome, theirs: Outcome) -> str:
    """The first aspect of the rule on which the two outcomes differ, in words; "" when they
    agree."""
    for aspect in [a for a in ASPECTS if a == "error" or a in rule.aspects]:
        found = difference(view_of(mine, aspect, rule.loose), view_of(theirs, aspect, rule.loose),
                           exact=aspect == "after")
        if found:
            return describe(aspect, mine, theirs, found)
    return ""


def same(rule: Rule, a: Outcome, b: Outcome) -> bool:
    """The two outcomes agree on every aspect the rule compares."""
    return agrees(rule, a)(b)


def agrees(rule: Rule, a: Outcome) -> Callable[[Outcome], bool]:
    """same(rule, a, b) for any b, a's views made once (a hint compares one outcome with many)."""
    aspects = [x for x in ASPECTS if x == "error" or x in rule.aspects]
    views = [view_of(a, x, rule.loose) for x in aspects]
    return lambda b: all(equal(seen, view_of(b, x, rule.loose), exact=x == "after")
                         for seen, x in zip(views, aspects, strict=True))


# --- running both
# ------------------------------------------------------------------------------------

REFERENCE_TIMEOUT = 10.0  # seconds; the reference never comes near it
# (language, grade_id, case_key) -> the reference's outcome (None:
_outcomes: dict[tuple, Outcome | None] = {}
# it timed out twice), once per process and language (a tool's error speaks the submission's
# language)
# the reference's outcomes by identity, whose views are made once (view_of)
_kept: dict[int, Outcome] = {}
_views: dict[tuple, Any] = {}  # (outcome, aspect, loose) by identity -> the view
_lock = threading.Lock()
# a call captures sys.stdout and sys.stderr, which every thread shares: one at a time
_one_call = threading.Lock()


def trusted_call(fn, case: Case, timeout: float = REFERENCE_TIMEOUT,
                 saved_as: tuple | None = None) -> Outcome:
    """`fn` (the reference, or a known mistake) called on `case` in this process, as check() calls a
    function; a harness call's outcome is kept on disk as `saved_as`'s (whose function, in which
    language), if given."""
    from .notebook_context import NotebookContext
    from .registry import shipped

    def call() -> Outcome:
        with _one_call:
            return NotebookContext(fn, shipped(), timeout).call(
                *case.args, scenario=case.scenario, **case.kwargs)

    return saved_outcomes.saved(saved_as, case, call) if saved_as else call()


def timed_out(outcome: Outcome, seconds: float) -> bool:
    return outcome.error == tr(
        "timed out after {seconds:g} s (an endless loop? no turn cap?)"
    ).format(seconds=seconds)


def patient_call(fn, case: Case, seconds: float, saved_as: tuple | None = None) -> Outcome | None:
    """trusted_call, where a call that timed out (a loaded machine: a trusted function, the
    reference or a known mistake, never comes near its limit) is run once more with twice the time;
    None if it times out again: never taken as what the function does. The caller holds its lock
    throughout, so the rerun is its only call running."""
    outcome = trusted_call(fn, case, seconds, saved_as)
    if timed_out(outcome, seconds):
        outcome = trusted_call(fn, case, 2 * seconds, saved_as)
    return None if timed_out(outcome, 2 * seconds) else outcome


def reference_outcome(exercise: Exercise, rule: Rule, index: int) -> Outcome | None:
    """The reference's outcome on a case, or None when it timed out twice (patient_call): never an
    oracle."""
    # rules made by one generator share the outcome
    key = (language(), exercise.grade_id, *case_key(rule, index))
    # made: read without waiting for the lock, which a run of another case may hold for seconds
    if key in _outcomes:
        return _outcomes[key]
    with _lock:  # held throughout: a rerun is the only reference call running
        if key not in _outcomes:
            fn, case = (
                reference.function(exercise.notebook, exercise.function),
                rule.all_cases()[index],
            )
            seconds = max(REFERENCE_TIMEOUT, exercise.call_timeout)
            # a harness run: once per machine
            saved_as = ("reference", *key[:2]) if exercise.call_timeout else None
            outcome = patient_call(fn, case, seconds, saved_as)
            _outcomes[key] = outcome
            if outcome is not None:
                keep(outcome)
        return _outcomes[key]


def warm(exercises: list[Exercise], languages: list[str]) -> None:
    """Every case's reference outcome of `exercises`, in each of `languages`: the grader runs it in
    a thread of its own while its fork server starts (the outcomes are then ready when the first
    students need them), taking the exercises in turn, a case of each: a student stopped on an
    exercise's first run of a harness waits for that run only, not for the other exercises'."""
    for lang in languages:
        with speaking(lang):
            queues = [[(e, rule, i) for rule in e.rules for i in range(len(rule.all_cases()))]
                      for e in exercises]
            for turn in itertools.zip_longest(*queues):
                for e, rule, i in filter(None, turn):
                    reference_outcome(e, rule, i)


def verdict(rule: Rule, mine: Outcome, theirs: Outcome, case: Case) -> str:
    """Why the student's outcome is wrong on this case; "" when it is right."""
    if rule.holds:
        found = difference(view(mine, "error"), view(theirs, "error"))
        return describe("error", mine, theirs, found) if found else rule.holds(mine, case)
    why = first_difference(rule, mine, theirs)
    if why and rule.readings and any(same(rule, mine, other)
                                     for other in rule.readings(theirs, case)):
        return ""
    return why


def case_key(rule: Rule, index: int) -> tuple:
    """Which call case `index` of `rule` is: rules made by one generator share their cases, and so
    their outcomes."""
    return rule.cases, index


def label(case: Case) -> str:
    return case.label() if callable(case.label) else case.label


def student_outcome(exercise: Exercise, rule: Rule, index: int, ctx, last: bool = True) -> Outcome:
    """The student's outcome on case `index` of `rule` (ctx: a mark.Recording). In an exercise whose
    every call starts a harness, once a call was stopped at its time limit the other cases are not
    run (each would cost as long, and a run of the harness that is not stuck ends within seconds):
    their outcome is unrun, with the reason. Where the context can (the grader's), the exercise's
    cases all run at once, first: each is an independent run of the harness, so the exercise costs
    one call limit at most, however slow each call."""
    key = case_key(rule, index)
    if exercise.call_timeout and not ctx.seen:  # the exercise's first call
        ctx.all_at_once({case_key(r, i): case for r in exercise.rules
                         for i, case in enumerate(r.all_cases())})
    stopped = [k for k, out in ctx.seen.items() if out.timed_out] if exercise.call_timeout else []
    if stopped and key not in ctx.seen:
        where = next(r.label(stopped[0][1]) for r in exercise.rules
                     if case_key(r, stopped[0][1]) == stopped[0])
        return Outcome(error=tr("not run: your function was stopped on an earlier case ({case}: "
                                "{error}), so this exercise's other cases were not run; if the "
                                "machine was busy, grading again with a longer call limit gives a "
                                "right function these points").format(
            case=where, error=ctx.seen[stopped[0]].error), unrun=True)
    return ctx.case(key, rule.all_cases()[index], last=last)


def judge(exercise: Exercise, rule: Rule) -> Callable:
    """The check function of one rule: every case, smallest first; the first that differs fails the
    check."""
    def check(ctx) -> None:
        from .mistakes import hint

        for index, case in enumerate(rule.all_cases()):
            mine = student_outcome(exercise, rule, index, ctx)
            # nothing to compare: the reason is the notebook's (or the budget's), for every case
            if mine.unrun:
                raise CheckFailed(mine.error or "")
            theirs = reference_outcome(exercise, rule, index)
            # not gradable: never graded against the student, and said (the grader's remarks)
            if theirs is None:
                remarks: set[str] = getattr(getattr(ctx, "context", ctx), "remarks", set())
                remarks.add(tr("the reference timed out twice on a case of '{rule}', which was not "
                               "graded").format(
                    rule=tr(rule.name)))
                continue
            # the reference's time says whether the limit was fair
            if mine.timed_out and exercise.call_timeout:
                raise CheckFailed(tr("with {case}: your function was stopped: {error}; the "
                                     "reference's run of this case took {seconds:.1f} s; if the "
                                     "machine was busy, grading again with a longer call limit "
                                     "gives a right function these points").format(
                                         case=rule.label(index), error=mine.error,
                                                                         seconds=theirs.seconds))
            why = verdict(rule, mine, theirs, case)
            if why:  # a stub gets STUB_HINT (run_check): no known mistake is run to name another
                raise CheckFailed(tr("with {case}: {why}").format(case=rule.label(index), why=why),
                                  "" if is_stub(mine.error) else hint(exercise, rule, index, ctx))

    return check


def exercise(grade_id: str, function: str, title: str, notebook: str, rules: list[Rule],
             call_timeout: float = 0.0) -> Exercise:
    """An exercise whose checks are its rules, each judged against the reference solution in
    `notebook` (`call_timeout`: seconds a call may take at least, for one that starts a harness)."""
    made = Exercise(grade_id, function, title, [], notebook=notebook, call_timeout=call_timeout)
    made.checks = [Check(r.name, judge(made, r), r.points, r.hidden) for r in rules]
    made.rules = rules
    return made


def rules_table(exercises: list[Exercise]) -> str:
    """The Markdown table of every exercise's rules (docs/GRADING.md holds it; a test keeps the two
    equal)."""
    rows = ["| exercise | rule (a sentence of its text) | points | cases | compared |",
            "|---|---|---:|---:|---|"]
    for e in exercises:
        for r in e.rules:
            what = "a property" if r.holds else ", ".join(a for a in ASPECTS if a in r.aspects)
            rows.append(f"| {e.grade_id} | {r.name} | {r.points:g} | {len(r.all_cases())} | {what} "
                        "|")
    return "\n".join(rows)
