"""Known mistakes: plausible wrong versions of the graded functions, one per file, each naming its
mistake.

A file holds GRADE_ID, the function (named as the exercise's), MISTAKE: the hint that names the
mistake (a `deferred` English sentence describing exactly that file's code), and FAILS: the rules it
fails (their English sentences, in the exercise's order), the sentences of the text its code breaks
and no other (one point per sentence: a test holds each file to its list). A hint is a proof: the
grader names a mistake only when, on every case of the exercise where the student's function or that
mistake differs from the reference, the two do the same, and no known mistake with another hint
does; otherwise the feedback shows the difference and names nothing. The tests hold them to it: each
loses marks, is named by its own hint, and is given no hint naming another.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
from collections.abc import Callable
from dataclasses import dataclass

# seconds one known mistake may take on one case (a loop with no cap ends by then)
MISTAKE_TIMEOUT = 3.0


@dataclass(frozen=True)
class Mistake:
    name: str  # the file's stem, e.g. l07_budget_before_call
    grade_id: str
    hint: str  # a deferred English sentence
    fn: Callable


@functools.cache
def known() -> dict[str, list[Mistake]]:
    """The known mistakes of each exercise, by grade_id, in file order."""
    from ..checks import EXERCISES

    functions = {e.grade_id: e.function for e in EXERCISES}
    found: dict[str, list[Mistake]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        fn = getattr(module, functions[module.GRADE_ID])
        found.setdefault(module.GRADE_ID, []).append(
            Mistake(info.name, module.GRADE_ID, module.MISTAKE, fn))
    return found


_outcomes: dict[tuple, object] = {}
# (rule, index, ids of the two outcomes) -> (the two outcomes, whether the first is wrong)
_wrong: dict[tuple, tuple] = {}
_lock = threading.Lock()


def outcome(mistake: Mistake, rule, index: int, timeout: float = MISTAKE_TIMEOUT):
    """What a known mistake does on one case of a rule, once per process (a harness run once per
    machine). A call that timed out is run again with twice the time (oracle.patient_call: a loaded
    machine) and is None if it times out again: no outcome, which no proof may use, neither to name
    the mistake nor to match a student's timeout (no known mistake runs to its time limit by design:
    every case's toy model ends its runs)."""
    from ....i18n import language
    from ..oracle import case_key, keep, patient_call

    # in the submission's language, as the reference's
    key = (language(), mistake.name, *case_key(rule, index))
    with _lock:
        if key not in _outcomes:
            harness = timeout > MISTAKE_TIMEOUT  # the exercise's calls start a harness (the CLI)
            found = patient_call(mistake.fn, rule.all_cases()[index], timeout,
                                 saved_as=("mistake", *key[:2]) if harness else None)
            if found is not None:
                keep(found)  # its views made once: every student's hint compares with it
            _outcomes[key] = found
        return _outcomes[key]


def wrong(rule, index: int, found, theirs) -> bool:
    """Whether a known mistake's outcome `found` on case `index` of `rule` is wrong against the
    reference's `theirs` (verdict), once per pair of outcomes and rule (rules sharing cases compare
    other aspects): the pair is held, so a new reference outcome is never read as an old one."""
    from ..oracle import verdict

    key = (rule, index, id(found), id(theirs))
    hit = _wrong.get(key)
    if hit is None or hit[0] is not found or hit[1] is not theirs:
        hit = _wrong[key] = (found, theirs,
                             bool(verdict(rule, found, theirs, rule.all_cases()[index])))
    return hit[2]


def hint(exercise, rule, index: int, ctx) -> str:
    """The hint of the known mistake proven to be the student's, "" when none is. The student failed
    case `index` of `rule`; `ctx` (a mark.Recording) gives the student's outcome on any case. A
    mistake is proven when, on every case of the exercise where the student's function or the
    mistake differs from the reference, the two do the same; the hint is named when the proven
    mistakes all have that one hint. Nothing is proven on a case without an outcome (the student's
    time budget ran out, or a harness exercise's other call was stopped at its limit; the reference
    or a mistake still in the running timed out twice). Lazily: the failing case first, then the
    cases the student already ran, a mistake is dropped at its first disagreement, and nothing more
    runs once no mistake is left."""
    from ..oracle import agrees, case_key, reference_outcome, student_outcome, verdict

    timeout = max(MISTAKE_TIMEOUT, exercise.call_timeout)
    left = known().get(exercise.grade_id, [])
    cases = [(r, i) for r in exercise.rules for i in range(len(r.all_cases()))
             if (r, i) != (rule, index)]
    # stable: those already run first, then in order
    cases.sort(key=lambda c: case_key(*c) not in ctx.seen)
    for r, i in [(rule, index), *cases]:
        if not left:
            return ""
        # nothing is proven on a case not run, and no
        mine = student_outcome(exercise, r, i, ctx, last=False)
        # mistake is stopped at its limit (patient_call): none is run to compare
        if mine.unrun or mine.timed_out:
            return ""
        case, theirs = r.all_cases()[i], reference_outcome(exercise, r, i)
        done = [(m, outcome(m, r, i, timeout)) for m in left]
        if theirs is None or any(o is None for _, o in done):
            return ""
        if verdict(r, mine, theirs, case):
            like_mine = agrees(r, mine)
            left = [m for m, o in done if like_mine(o)]
        else:
            left = [m for m, o in done if not wrong(r, i, o, theirs)]
    causes = {m.hint for m in left}
    return causes.pop() if len(causes) == 1 else ""
