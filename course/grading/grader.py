"""The batch grader: every exercise of every submission in its own worker process, graded on the wire.

`grade_batch(paths, out_dir)` writes out_dir/<stem>.json (Gradescope's results.json) for each
submission and out_dir/summary.csv. Reports already there, valid and newer than their submission
are kept, so a batch killed half-way and started again grades only what is missing.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

from .calls import Call
from .child import OUTPUT_CAP
from .core import Exercise, Outcome
from .isolation import Gone, Sandbox, worker_uid
from .notebook import Submission, assignment, program, read
from .registry import Registry, load
from .report import is_current, results_json, summary_csv, write_atomic, write_json
from .runner import Result, run_exercise
from .wire import Wire


GRACE = 2.0  # seconds past its limit a cell may take to stop before the grader kills the worker
RETRIES = 3  # fresh workers an exercise gets after cells that killed or hung one (each such cell is then skipped)


@dataclass
class Limits:
    call: float = 15.0  # seconds one call of the student's function may take
    cell: float = 10.0  # seconds one notebook cell may run before it is interrupted and skipped
    exercise: float = 120.0  # seconds for all the checks of one exercise
    memory: int = 1 << 30  # bytes of address space a worker may add to what the SDK needs


def checked(result: dict) -> dict:
    """A worker's answer reduced to the fields an Outcome takes, with the types it expects."""
    error = result.get("error")
    return {"value": result.get("value"), "error": None if error is None else str(error)[:2000],
            "stdout": str(result.get("stdout", ""))[: OUTPUT_CAP + 100]}


class Isolated:
    """A Context running the student's function in a worker process, talking to the grader's wire."""

    def __init__(self, grader: "Grader", cells: list[str] | None, problem: str, function: str):
        self.grader, self.cells, self.problem, self.function = grader, cells, problem, function
        self.deadline = time.monotonic() + grader.limits.exercise
        self.worker = None
        self.folders: list[Path] = []
        self.skips: dict[int, tuple[int, str]] = {}  # cell -> (the statement it stops before, why)
        self.notes: list[str] = []  # the cells skipped, and why: shown with every check of the exercise

    def _ready(self):
        """The worker with the notebook's cells run, started on first use and after a call killed it;
        a cell that ended or hung a worker is skipped from where it was in the next one, up to RETRIES times."""
        while not (self.problem or self.worker):
            self._start()
        return self.worker

    def _start(self) -> None:
        """One worker running the cells: self.worker when it defines the function, else a new skip or self.problem."""
        sandbox, limits = self.grader.sandbox, self.grader.limits
        worker, folder = sandbox.spawn()
        self.folders.append(folder)
        message = {**sandbox.setup(folder), "cells": self.cells, "function": self.function, "cell": limits.cell,
                   "stops": [[cell, stop] for cell, (stop, _) in self.skips.items()]}
        at, until = None, self.deadline
        try:
            while "at" in (answer := worker.request(message, max(until - time.monotonic(), 0.01))):
                if at is None or answer["at"][0] != at[0]:  # a new cell: its own time limit, capped by the budget
                    until = min(time.monotonic() + limits.cell + GRACE, self.deadline)
                at, message = answer["at"], None
        except Gone as e:
            if time.monotonic() >= self.deadline:
                self.problem = f"the exercise's time budget ({limits.exercise:g} s) ran out running the notebook's cells"
            elif at is None:
                self.problem = f"running the notebook's cells: {e}"
            else:
                why = (f"ran past {limits.cell:g} s at line {at[2]} and ignored the interruption" if e.timed_out
                       else f"ended the process at line {at[2]} (os._exit()? a crash? the memory limit?)")
                if len(self.skips) < RETRIES:
                    self.skips[at[0]] = (at[1], f"{why}, so it was skipped from there")
                else:
                    self.problem = f"cell {at[0]} {why}, after {RETRIES} cells were skipped for the same: given up"
            return
        cut = [(c["cell"], c["why"]) for c in answer.get("cut") or []] + [(c, why) for c, (_, why) in self.skips.items()]
        self.notes = [f"cell {cell} {why}" for cell, why in sorted(cut)]
        if not answer.get("ready"):
            worker.kill()
            errors = [str(x)[:500] for x in answer.get("errors") or []]
            self.problem = f"the notebook does not define {self.function}()" + (f" ({errors[0]})" if errors else "")
            return
        self.worker = worker

    def call(self, *args, scenario=None, **kwargs) -> Outcome:
        call = Call(self.grader.registry.scenario(scenario), args, kwargs)
        limits = self.grader.limits
        if time.monotonic() >= self.deadline:
            return call.outcome({"error": f"the exercise's time budget ({limits.exercise:g} s) is used up"})
        worker = self._ready()
        if worker is None:
            return call.outcome({"error": self.problem})
        token = self.grader.wire.router.open(call)
        base_url, tool_url = self.grader.wire.urls(token)
        left = self.deadline - time.monotonic()
        try:
            result = checked(worker.request({"args": call.args, "kwargs": call.kwargs, "timeout": limits.call,
                                             "base_url": base_url if call.api else None, "tool_url": tool_url},
                                            min(limits.call, max(left, 0.1))))
        except Gone as e:
            self.worker = None
            budget = left < limits.call
            result = {"error": (f"the exercise's time budget ({limits.exercise:g} s) ran out during the call" if budget
                                else f"timed out after {limits.call:g} s (an endless loop? no turn cap? waiting "
                                "for input?)") if e.timed_out else str(e)}
        finally:
            self.grader.wire.router.close(token)
        return call.outcome(result)

    def close(self) -> None:
        if self.worker:
            self.worker.kill()
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)


class Grader:
    """The trusted side of a batch: the registry, the wire, the sandbox and the limits."""

    def __init__(self, registry: Registry | None = None, limits: Limits | None = None):
        self.registry, self.limits = registry, limits or Limits()

    def __enter__(self) -> "Grader":
        self.root = Path(tempfile.mkdtemp(prefix="course-grade-"))
        if worker_uid() is not None:
            os.chmod(self.root, 0o755)  # workers running as nobody reach their folders and the package view
        self.wire = Wire().__enter__()
        self.sandbox = Sandbox(self.root, self.limits.memory, int(self.limits.exercise) + 10)
        return self

    def __exit__(self, *exc) -> None:
        self.sandbox.close()
        self.wire.__exit__()
        shutil.rmtree(self.root, ignore_errors=True)

    def exercise(self, sub: Submission, exercise: Exercise) -> list[Result]:
        cells, problem = program(sub, exercise)
        ctx = Isolated(self, cells, problem, exercise.function)
        try:
            return [replace(r, note="; ".join(ctx.notes)) for r in run_exercise(exercise, ctx)]
        except Exception as e:  # a grader bug costs this exercise, with a reason, not the batch
            return [Result(f"{exercise.grade_id}: {c.name}", 0.0, c.points, f"internal grader error: {e!r}",
                           hidden=c.hidden) for c in exercise.checks]
        finally:
            ctx.close()


def summary_line(sub: Submission, exercises: list[Exercise], results: list[Result]) -> str:
    score, total = sum(r.score for r in results), sum(r.max_score for r in results)
    groups = sorted({Path(e.notebook).stem or e.grade_id for e in exercises})
    line = f"{sub.path.name}: {score:g}/{total:g} points ({', '.join(groups) or 'no exercises'})"
    notes = dict.fromkeys(f"{r.name.split(':')[0]}: {r.note}" for r in results if r.note)  # once per exercise
    return "\n".join([line, *([sub.problem] if sub.problem else []), *notes])


def grade_batch(paths, out_dir, tests_dir=None, jobs: int | None = None, *, limits: Limits | None = None,
                registry: Registry | None = None, log=None) -> list[dict]:
    """Grade the notebooks at `paths` into out_dir; returns their reports (results.json dicts) in order.

    `jobs` exercise processes run at once (default: the CPU count); `registry` replaces the shipped
    exercises (tests_dir's hidden checks are merged into it). Progress goes to `log` (stderr).
    """
    log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    paths = [Path(p) for p in paths]
    stems = [p.stem for p in paths]
    if len(set(stems)) != len(stems):
        raise ValueError(f"two submissions share a file name: {sorted({s for s in stems if stems.count(s) > 1})}")
    out = Path(out_dir)
    reports = {p.stem: r for p in paths if (r := is_current(out / f"{p.stem}.json", p))}
    todo = [p for p in paths if p.stem not in reports]
    log(f"{len(paths)} submissions: {len(reports)} already graded, {len(todo)} to grade")
    if todo:
        with Grader(None, limits) as grader, ThreadPoolExecutor(jobs or os.cpu_count() or 1) as pool:
            # the checks import the SDK here while the fork server, already started, imports it too
            grader.registry = registry = load(tests_dir, registry)
            plan, results, seconds, futures = {}, {}, {}, {}  # results[p][i]: the i-th exercise's Results

            def timed(sub, e):
                start = time.monotonic()
                return grader.exercise(sub, e), time.monotonic() - start

            def write(p):  # a submission is written as soon as its last exercise is graded
                sub, exercises = plan[p]
                flat = [r for i in sorted(results[p]) for r in results[p][i]]
                reports[p.stem] = results_json(flat, seconds[p], summary_line(sub, exercises, flat))
                write_json(out / f"{p.stem}.json", reports[p.stem])
                log(f"[{len(reports)}/{len(paths)}] {reports[p.stem]['output'].splitlines()[0]}")

            for p in todo:
                sub = read(p)
                plan[p], results[p], seconds[p] = (sub, assignment(sub, registry)), {}, 0.0
                for i, e in enumerate(plan[p][1]):
                    futures[pool.submit(timed, sub, e)] = (p, i)
                if not plan[p][1]:
                    write(p)
            for future in as_completed(futures):
                p, i = futures[future]
                results[p][i], spent = future.result()
                seconds[p] += spent
                if len(results[p]) == len(plan[p][1]):
                    write(p)
    write_atomic(out / "summary.csv", summary_csv({s: reports[s] for s in stems}))
    return [reports[s] for s in stems]
