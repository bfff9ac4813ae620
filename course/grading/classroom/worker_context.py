"""The isolated context: a Context that calls the student's function in a worker process of the
batch's sandbox.

The worker runs the notebook's cells, then answers each call; the API it talks to and the tools it
runs are the grader's (the wire), so what a check reads was recorded by the grader, never claimed by
the worker.
"""
from __future__ import annotations

import copy
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from ...contract.call import Call
from ...contract.child import OUTPUT_CAP
from ...contract.exercise import Outcome
from ...i18n import language, speaking, tr
from .budget import Budget
from .sandbox.fork_server import Runner
from .sandbox.worker import Gone, Worker

if TYPE_CHECKING:
    from ..judging.registry import Registry
    from .sandbox.fork_server import ForkServer
    from .sandbox.wire import Wire

GRACE = 2.0  # seconds past its limit a cell may take to stop before the grader kills the worker
# fresh workers an exercise gets after cells that killed or hung one (each such cell is then
# skipped)
RETRIES = 3
MAX_WHY = 300  # characters of a worker's reason for a cell it cut short
# calls run at once (WorkerContext.at_once) across the batch: 6 per core, so one notebook's two
# exercises of the Claude Code CLI (9 runs) never wait, and a class's stay within what the cores
# serve well inside the call limit (9 at once: 7-8 s each at a load average of 8 on 2 cores)
SLOTS = threading.BoundedSemaphore(6 * (os.cpu_count() or 1))


def cuts(claimed, cells: int) -> list[tuple[int, str]]:
    """The cells a worker says it cut short, as (cell, why): each a cell of the notebook, once, its
    why capped (the worker is the student's process: what it claims is shown with every check, so it
    is bounded)."""
    found: dict[int, str] = {}
    for c in claimed if isinstance(claimed, list) else []:
        cell = c.get("cell") if isinstance(c, dict) else None
        if type(cell) is int and 1 <= cell <= cells and cell not in found:
            found[cell] = str(c.get("why"))[:MAX_WHY]
    return list(found.items())


def position(claimed) -> tuple[int, int, int]:
    """Where a worker says its cells are (cell, statement, line): three integers, or the worker is
    not trusted."""
    if not (
        isinstance(claimed, list) and len(claimed) == 3 and all(type(n) is int for n in claimed)
    ):
        raise Gone(tr("the process sent something that is not a result (did the code write to the "
                      "grader's channel?)"))
    return claimed[0], claimed[1], claimed[2]


def checked(result: dict) -> dict:
    """A worker's answer reduced to the fields an Outcome takes, with the types it expects."""
    error = result.get("error")
    return {"value": result.get("value"), "error": None if error is None else str(error)[:2000],
            "stdout": str(result.get("stdout", ""))[: OUTPUT_CAP + 100],
            "after": result.get("after") if isinstance(result.get("after"), dict) else None}


class WorkerContext:
    """A Context running the student's function in a worker process, talking to the grader's
    wire."""

    def __init__(self, server: ForkServer, wire: Wire, budget: Budget, registry: Registry,
                 cells: list[str] | None, problem: str, function: str):
        self.server, self.wire, self.budget, self.registry = server, wire, budget, registry
        self.cells, self.problem, self.function = cells, problem, function
        self.deadline = time.monotonic() + budget.exercise
        self.worker: Worker | None = None
        # where run_python runs for this exercise (its calls and its checks)
        self.runner = Runner(server)
        self.skips: dict[int, tuple[int, str]] = {}  # cell -> (the statement it stops before, why)
        # the cells skipped, and why: shown with every check of the exercise
        self.notes: list[str] = []
        # what the checks could not grade, and why (the reference failed): shown too
        self.remarks: set[str] = set()

    def _ready(self):
        """The worker with the notebook's cells run, started on first use and after a call killed
        it; a cell that ended or hung a worker is skipped from where it was in the next one, up to
        RETRIES times."""
        while not (self.problem or self.worker):
            self._start()
        return self.worker

    def _start(self) -> None:
        """One worker running the cells: self.worker when it defines the function, else a new skip
        or self.problem."""
        budget = self.budget
        worker = self.server.spawn()
        message: dict | None = {**self.server.setup(worker), "socket": str(self.wire.path),
                                "cells": self.cells,
                   "function": self.function, "cell": budget.cell, "lang": language(),
                   "stops": [[cell, stop] for cell, (stop, _) in self.skips.items()]}
        at, until = None, self.deadline
        try:
            while "at" in (answer := worker.request(message, max(until - time.monotonic(), 0.01))):
                where = position(answer["at"])
                # a new cell: its own time limit, capped by the budget
                if at is None or where[0] != at[0]:
                    until = min(time.monotonic() + budget.cell + GRACE, self.deadline)
                at, message = where, None
        except Gone as e:
            worker.kill()
            if time.monotonic() >= self.deadline:
                self.problem = tr("the exercise's time budget ({seconds:g} s) ran out running the "
                                  "notebook's cells").format(seconds=budget.exercise)
            elif at is None:
                self.problem = tr("running the notebook's cells: {error}").format(error=e)
            else:
                why = (tr("ran past {seconds:g} s at line {line} and ignored the interruption")
                       if e.timed_out
                       else tr("ended the process at line {line} (os._exit()? a crash? the memory "
                               "limit?)")).format(
                    seconds=budget.cell, line=at[2])
                if len(self.skips) < RETRIES:
                    self.skips[at[0]] = (at[1],
                                         tr("{why}, so it was skipped from there").format(why=why))
                else:
                    self.problem = tr("cell {cell} {why}, after {retries} cells were skipped for "
                                      "the same: given up"
                                      ).format(cell=at[0], why=why, retries=RETRIES)
            return
        cut = cuts(answer.get("cut"), len(self.cells or []))
        cut += [(c, why) for c, (_, why) in self.skips.items()]
        self.notes = [tr("cell {cell} {why}").format(cell=cell, why=why) for cell,
                      why in sorted(cut)]
        if not answer.get("ready"):
            worker.kill()
            errors = answer["errors"] if isinstance(answer.get("errors"), list) else []
            errors = [str(x)[:500] for x in errors[:1]]
            if errors:
                self.problem = tr("the notebook does not define {function}() ({error})").format(
                    function=self.function, error=errors[0])
            else:
                self.problem = tr("the notebook does not define {function}()").format(
                    function=self.function)
            return
        self.worker = worker

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        budget = self.budget
        if time.monotonic() >= self.deadline:
            return Outcome(error=tr("the exercise's time budget ({seconds:g} s) is used up").format(
                seconds=budget.exercise), unrun=True)
        worker = self._ready()
        if worker is None:
            return Outcome(error=self.problem, unrun=True)
        call = Call(self.registry.scenario(scenario), args, kwargs, runner=self.runner)
        token = self.wire.router.open(call)
        base_url, tool_path = self.wire.urls(token)
        started = time.monotonic()
        left = self.deadline - started
        try:
            result = checked(worker.request({"args": call.args, "kwargs": call.kwargs,
                                             "timeout": budget.call,
                                             "base_url": base_url if call.api else None,
                                             "tool_path": tool_path},
                                            min(budget.call, max(left, 0.1))))
        except Gone as e:
            self.worker = None
            if not e.timed_out:
                error = str(e)
            elif left < budget.call:
                error = tr(
                    "the exercise's time budget ({seconds:g} s) ran out during the call"
                ).format(seconds=budget.exercise)
            else:
                error = tr("timed out after {seconds:g} s (an endless loop? no turn cap? waiting "
                           "for input?)").format(
                    seconds=budget.call)
            result = {"error": error, "timed_out": e.timed_out}
        finally:
            self.wire.router.close(token)
        return call.outcome({**result, "seconds": time.monotonic() - started})

    def at_once(self, cases: list) -> list[Outcome | None]:
        """The cases called: the first alone in this context's worker, then the others at once
        (an exercise's runs of a harness: seconds each, mostly waiting), each in a worker of its own
        that runs the notebook's cells again (skipping what this one skipped). Each call has the
        call limit, all of them the exercise's budget; a call waits for one of the batch's SLOTS
        first (its limit starts then). As when they run one after another, a case after the first
        one stopped is not run (None), whatever finished first: the grade does not depend on the
        timing. The first runs alone, so a function that never returns is stopped once, with one
        process spinning, as before."""
        with SLOTS:
            first = self.call(*cases[0].args, scenario=cases[0].scenario, **cases[0].kwargs)
        if first.timed_out or first.unrun:
            return [first, *[None if first.timed_out else first for _ in cases[1:]]]
        others = [copy.copy(self) for _ in cases[1:]]
        for other in others:
            other.worker = None
        first_stopped, lock = [len(cases)], threading.Lock()  # the first case stopped so far
        lang = language()  # a pool's thread does not inherit the submission's `speaking` block

        def one(i: int, ctx: WorkerContext, case) -> Outcome | None:
            with SLOTS, speaking(lang):
                if first_stopped[0] < i:
                    return None
                out = ctx.call(*case.args, scenario=case.scenario, **case.kwargs)
            if out.timed_out:
                with lock:
                    first_stopped[0] = min(first_stopped[0], i)
            return out

        try:
            with ThreadPoolExecutor(len(others), thread_name_prefix="case") as pool:
                outs = [first, *pool.map(one, range(1, len(cases)), others, cases[1:])]
        finally:
            for other in others:
                if other.worker:
                    other.worker.kill()
        return [out if i <= first_stopped[0] else None for i, out in enumerate(outs)]

    def close(self) -> None:
        if self.worker:
            self.worker.kill()
        self.runner.close()
