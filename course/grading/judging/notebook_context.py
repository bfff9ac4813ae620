"""The notebook's context: `check(grade_id, fn)` runs the exercise's checks in this process, prints
a report and returns the points earned.

Each call of `fn` gets a fresh in-process LocalAPI (recording every request) and the scenario's
tools (recording every call), runs in a thread with a time limit, and its value comes back through
JSON, exactly as in the grader. `check` never raises: a stub, a crash or an endless loop is a failed
check.
"""
from __future__ import annotations

import ctypes
import sys
import threading
import time

from ...contract.call import Call
from ...contract.child import invoke, snapshot
from ...contract.exercise import Outcome
from ...i18n import tr
from ..marks.mark import run_exercise
from ..marks.report import Report
from . import registry as registry_module

CALL_TIMEOUT = 10.0  # seconds a single call of the student's function may take in a notebook


class TimeLimit(BaseException):
    """Raised inside a call that overran its time limit, to stop it."""


def run_with_limit(fn, timeout: float) -> dict:
    """invoke(fn) in a daemon thread; after `timeout` seconds the thread is interrupted and
    abandoned."""
    box: dict = {}
    streams = sys.stdout, sys.stderr
    thread = threading.Thread(target=lambda: box.update(invoke(fn, [], {})), daemon=True,
                              name="check-call")
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            # started: ident set
            ctypes.c_ulong(thread.ident), ctypes.py_object(TimeLimit))  # type: ignore[arg-type]
        # the abandoned call captured them; the report must reach the notebook
        sys.stdout, sys.stderr = streams
        return {"value": None,
                "error": tr("timed out after {seconds:g} s (an endless loop? no turn cap?)").format(
            seconds=timeout), "timed_out": True}
    return box


class NotebookContext:
    """A Context that calls the student's function in this process."""

    def __init__(self, fn, registry: registry_module.Registry, timeout: float = CALL_TIMEOUT):
        self.fn, self.registry, self.timeout = fn, registry, timeout

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        call = Call(self.registry.scenario(scenario), args, kwargs)
        started = time.monotonic()
        try:
            passed, named = call.arguments()
            result = run_with_limit(lambda: self.fn(*passed, **named), self.timeout)
        finally:
            call.close()
        return call.outcome({**result, "after": snapshot(call.args, call.kwargs, passed, named),
                             "seconds": time.monotonic() - started})


def show(report: Report) -> None:
    """The report as HTML in a notebook (its text beside it), then what the number under it is; as
    text anywhere else."""
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(report)
        print(tr("The number below (Out) is the points earned: check() returns them, and nbgrader "
                 "reads a check cell's value as its partial credit."))
    else:
        print(repr(report))


def check(grade_id: str, fn, *, timeout: float = CALL_TIMEOUT) -> float:
    """Run exercise `grade_id`'s checks on `fn`, print which pass and why the others fail, and
    return the points earned: as a check cell's last expression it is the cell's result, which
    nbgrader reads as partial credit."""
    registry = registry_module.shipped()
    if grade_id not in registry.exercises:
        print(tr("There is no exercise {grade_id!r}. Known exercises: {known}.").format(
            grade_id=grade_id, known=", ".join(registry.exercises)))
        return 0
    exercise = registry.exercise(grade_id)
    if not callable(fn):
        print(tr("{grade_id}: expected the function {function}, got a {kind}; run the cell that "
                 "defines it first.")
              .format(grade_id=grade_id, function=exercise.function, kind=type(fn).__name__))
        return 0
    verdicts = run_exercise(exercise,
                            NotebookContext(fn, registry, max(timeout, exercise.call_timeout)))
    show(Report(exercise, verdicts))
    earned = sum(v.score for v in verdicts)
    return int(earned) if earned == int(earned) else round(earned, 4)
