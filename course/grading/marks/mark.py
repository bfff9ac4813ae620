"""Running an exercise's checks against a Context: one Mark per check, never an exception.

The same function runs in the notebook (`check()`) and in the grader; only the Context differs.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ...contract.exercise import CheckFailed, Exercise, Outcome, shallow
from ...i18n import deferred, tr

STUB_HINT = deferred("replace the `raise NotImplementedError(...)` in the solution cell with your "
                     "code")


def is_stub(error: str | None) -> bool:
    """The call raised the exercise's stub: such a failure gets STUB_HINT, whatever the check's own
    hint."""
    return bool(error and error.startswith("NotImplementedError"))


@dataclass
class Mark:
    name: str  # "<grade_id>: <what it checks>"
    score: float
    max_score: float
    reason: str = ""  # why it failed; empty when it passed
    hint: str = ""
    hidden: bool = False
    # what the grader skipped to grade it (notebook cells that hung or ended the process)
    note: str = ""
    stub: bool = False  # the function is still the exercise's stub (it raised NotImplementedError)

    @property
    def passed(self) -> bool:
        return not self.reason


class Recording:
    """Wraps a Context to remember the last Outcome, so a failure can say how the call ended, and
    each case's Outcome in `seen`, which an exercise's checks share: a case runs once, whichever
    check or hint asks first."""

    def __init__(self, context, seen: dict | None = None):
        self.context, self.seen = context, {} if seen is None else seen
        self.last: Outcome | None = None

    def call(self, *args, **kwargs) -> Outcome:
        self.last = self.context.call(*args, **kwargs)
        return self.last

    def case(self, key, case, *, last: bool = True) -> Outcome:
        """The Outcome of the call a Case describes, made once per key; `last=False`: a hint's look
        at another case, which is not how the check's own call ended."""
        if key not in self.seen:
            self.seen[key] = kept(self.context.call(*case.args, scenario=case.scenario,
                                                    **case.kwargs))
        if last:
            self.last = self.seen[key]
        return self.seen[key]

    def all_at_once(self, cases: dict) -> None:
        """Run the cases ({key: Case}) not run yet at once, when the context can (the grader's: a
        worker each), and keep their Outcomes in `seen` (a case the context did not run, None, is
        left out); a context that cannot runs each when asked."""
        todo = {k: c for k, c in cases.items() if k not in self.seen}
        if len(todo) > 1 and hasattr(self.context, "at_once"):
            for key, out in zip(todo, self.context.at_once(list(todo.values())), strict=True):
                if out is not None:
                    self.seen[key] = kept(out)


def kept(out: Outcome) -> Outcome:
    """An Outcome as `seen` keeps it: its values copied one level deep."""
    return replace(out, value=shallow(out.value), after=shallow(out.after),
                   requests=shallow(out.requests))


def run_check(exercise: Exercise, check, context, seen: dict | None = None) -> Mark:
    name = f"{exercise.grade_id}: {tr(check.name)}"
    ctx = Recording(context, seen)
    try:
        check.fn(ctx)
        return Mark(name, check.points, check.points, hidden=check.hidden)
    except CheckFailed as failed:
        reason, hint = failed.reason, failed.hint
    except AssertionError as failed:
        reason, hint = str(failed) or tr("a check's assertion failed"), ""
    except Exception as crash:
        # the check could not read the outcome, e.g. a value of the wrong shape
        crashed = f"{type(crash).__name__}: {crash}"
        reason, hint = tr("the result could not be checked ({error})").format(error=crashed), ""
    error = ctx.last.error if ctx.last else None
    stub = is_stub(error)
    if stub:
        reason, hint = tr("not implemented yet ({error})").format(error=error), tr(STUB_HINT)
    elif error and error not in reason and not exercise.rules:
        # a rule compares what was raised itself
        reason = tr("{reason}; the call ended with {error}").format(reason=reason, error=error)
    return Mark(name, 0.0, check.points, reason, hint, check.hidden, stub=stub)


def run_exercise(exercise: Exercise, context) -> list[Mark]:
    """Every check of the exercise, in order, each in a fresh Recording sharing the Outcomes of the
    cases."""
    seen: dict = {}
    return [run_check(exercise, c, context, seen) for c in exercise.checks]
