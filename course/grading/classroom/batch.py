"""The batch: every exercise of every submission in its own confined worker, graded on the wire.

`grade_batch(paths, out_dir)` takes notebooks, or class folders laid out as
`<student>/<notebook>.ipynb` or nbgrader's `<student>/<assignment>/<notebook>.ipynb`. It writes
out_dir/<stem>.json (a notebook given by path) or out_dir/<student>/<stem>.json (Gradescope's
results.json) and out_dir/summary.csv, and a feedback page: out_dir/<stem>.feedback.html for a
notebook on its own; for a class, out_dir/gradebook.csv and out_dir/<student>/feedback.html (a name
that could clash with the grader's files is escaped: see file_name). A report is written by the
grader once its submission's worker processes are gone, and every report is written again from
memory at the end; a batch started again keeps the reports its seals vouch for (see report_seals.py)
and grades the rest.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from pathlib import Path

from ...contract.exercise import Exercise
from ...i18n import speaking, tr, tr_plural
from ...lessons import LESSONS
from ...tools.workspace import RUNNER
from ..judging import oracle, reference, saved_outcomes
from ..judging.registry import Registry, load
from ..marks.mark import Mark, run_exercise
from ..marks.printable import name_bytes, printable
from ..marks.report import gradebook_csv, results_json, summary_csv, write_atomic, write_json
from .budget import Budget
from .feedback import feedback_html
from .report_seals import ReportSeals, made_from
from .sandbox import cpu_share
from .sandbox.confinement import Confinement
from .sandbox.fork_server import ForkServer
from .submission import Submission, assignment, collect, language, program
from .worker_context import WorkerContext

# exercises graded at once per core: each waits for its worker, the API and the tools half the time
JOBS_PER_CPU = 2


class Batch:
    """The trusted side of a batch: the wire, the fork server and the budget."""

    def __init__(self, budget: Budget, confinement: Confinement, private: list[Path], jobs: int):
        self.budget, self.confinement, self.private, self.jobs = budget, confinement, private, jobs

    def __enter__(self) -> Batch:
        self.root = Path(tempfile.mkdtemp(prefix="course-grade-"))
        # workers running as their own uid reach their folders and the package view
        os.chmod(self.root, 0o755)
        # workers sharing the grader's uid share its bound on connections
        connections = self.budget.connections * (1 if self.confinement.own_uid else self.jobs)
        self.cgroup = cpu_share.batch_group(self.jobs) if self.confinement.own_uid else None
        self.server = ForkServer(self.root, self.confinement, self.private, self.budget,
                                 self.cgroup)
        # the SDK, imported here while the fork server, already started, imports it
        from .sandbox.wire import Wire

        self.wire = Wire(self.root / "api.sock", connections).__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.server.close()
        cpu_share.remove(self.cgroup)
        self.wire.__exit__()
        shutil.rmtree(self.root, ignore_errors=True)

    def exercise(self, sub: Submission, exercise: Exercise, registry: Registry) -> list[Mark]:
        """The exercise's verdicts, in the submission's language, returned once every process its
        worker started is gone. Code the checks or the tools run for it (run_python) runs in the
        sandbox, never here."""
        with speaking(language(sub)):
            cells, problem = program(sub, exercise)
            calls = sum(len(r.all_cases()) for r in exercise.rules) if exercise.call_timeout else 0
            # a harness's calls are
            budget = replace(self.budget, call=max(self.budget.call, exercise.call_timeout),
                             # slow: time for each
                             exercise=max(self.budget.exercise, calls * exercise.call_timeout))
            ctx = WorkerContext(self.server, self.wire, budget, registry, cells, problem,
                                exercise.function)
            confined = RUNNER.set(ctx.runner)
            try:
                marks = run_exercise(exercise, ctx)
                return [replace(r, note="; ".join([*ctx.notes, *sorted(ctx.remarks)]))
                        for r in marks]
            except Exception as e:  # a grader bug costs this exercise, with a reason, not the batch
                return [Mark(f"{exercise.grade_id}: {tr(c.name)}", 0.0, c.points,
                             tr("internal grader error: {error!r}").format(error=e),
                             hidden=c.hidden)
                        for c in exercise.checks]
            finally:
                RUNNER.reset(confined)
                ctx.close()


def score_line(exercises: list[Exercise], results: list[Mark]) -> str:
    """The points, and what they were for: a lesson's exercises by the lesson's title, others by
    their notebook."""
    score, total = sum(r.score for r in results), sum(r.max_score for r in results)
    titles = dict(LESSONS)
    groups = [titles.get(stem, stem)
              for stem in sorted({Path(e.notebook).stem or e.grade_id for e in exercises})]
    return tr("{score:g}/{total:g} points ({exercises})").format(
        score=score, total=total, exercises=tr(", ").join(groups) or tr("no exercises"))


def summary_line(sub: Submission, exercises: list[Exercise], results: list[Mark]) -> str:
    line = f"{sub.path.name}: " + score_line(exercises, results)
    # once per exercise
    notes = dict.fromkeys(f"{r.name.split(':')[0]}: {r.note}" for r in results if r.note)
    return "\n".join([line, *([sub.problem] if sub.problem else []), *notes])


# what the grader's own files in an output folder end with
GRADER_SUFFIXES = (".json", ".csv", ".html", ".tmp")


def file_name(part: str) -> str:
    """One part of a report's name (a student, a notebook's stem) as a file name none of the
    grader's own files can have and no other part gets: any character but a letter, a digit or `-_.,
    ` as %XX, and so a leading dot and the dot of a grader's suffix (a student named summary.csv
    writes to summary%2Ecsv/); a long one shortened with a hash after a `~`."""
    name = "".join(c if c.isalnum() or c in "-_., " else "".join(f"%{b:02X}" for b in name_bytes(c))
                   for c in part)
    if name.startswith("."):
        name = "%2E" + name[1:]
    if name.lower().endswith(GRADER_SUFFIXES):
        head, _, tail = name.rpartition(".")
        name = f"{head}%2E{tail}"
    if len(name.encode()) > 180:
        name = (
            name.encode()[:160].decode(errors="ignore")
            + "~"
            + hashlib.sha256(name_bytes(part)).hexdigest()[:16]
        )
    return name


def report_path(out: Path, name: str) -> Path:
    """Where the report `name` (`<stem>`, or `<student>/<stem>`) is written."""
    *folder, stem = [file_name(p) for p in name.split("/", 1)]
    return out.joinpath(*folder, stem + ".json")


def private_paths(notebooks: list[Path], given: list[Path], out: Path, tests_dir) -> list[Path]:
    """What workers must not see: every submission and its folder, the folders given, hidden tests,
    the output, the reference solutions the checks compare with and their saved outcomes. A
    student's link is no path to hide (bubblewrap would hide what it points at)."""
    trusted = [p.resolve() for p in [*given, out, *([Path(tests_dir)] if tests_dir else [])]]
    trusted += [p.resolve() for p in (reference.SOLUTIONS, saved_outcomes.folder()) if p
                and p.is_dir()]
    files = [Path(os.path.abspath(p)) for p in notebooks if not p.is_symlink()]
    # a notebook given by path: the instructor's, links followed
    files += [p for p in trusted if p.is_file()]
    return list(dict.fromkeys([*files, *{p.parent for p in files}, *trusted]))


def progress_log(stream=None):
    """A log writing to `stream` (the stderr of now): a reference outcome computed meanwhile in
    another thread captures sys.stderr while it runs, and must not take the progress lines for what
    it printed."""
    stream = stream or sys.stderr
    return lambda line: print(line, file=stream, flush=True)


def one_line(log):
    """`log` given each line with every control character escaped: a student's name (ESC[1A ESC[2K
    CR ...) cannot move the cursor, erase a line the grader printed, or start a line of its own."""
    return lambda line: log(printable(line))


def grade_batch(paths, out_dir, tests_dir=None, jobs: int | None = None, *,
                budget: Budget | None = None,
                registry: Registry | None = None, log=None,
                isolation: str | None = None) -> list[dict]:
    """Grade the notebooks (or class folders) at `paths` into out_dir; returns the reports
    (results.json dicts).

    `jobs` exercise processes run at once (default: JOBS_PER_CPU per core); `registry` replaces the
    shipped exercises (tests_dir's hidden checks are merged into it); `isolation` asks for a
    Confinement mode (default: the strongest this machine allows). Progress and the summary go to
    `log` (stderr).
    """
    log = one_line(log or progress_log())
    entries = collect([Path(p) for p in paths])  # report name -> submission, read
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    confinement = Confinement.detect(isolation)
    budget = budget or Budget()
    seals = ReportSeals(out, made_from(tests_dir, registry, budget, confinement.mode))
    reports = {n: r for n,
               sub in entries.items() if (r := seals.trusted(n, sub, report_path(out, n)))}
    todo = [n for n in entries if n not in reports]
    log(tr_plural("{count} submission: {graded} already graded, {todo} to grade (isolation: "
                  "{mode})",
                  "{count} submissions: {graded} already graded, {todo} to grade (isolation: "
                  "{mode})", len(entries))
        .format(count=len(entries), graded=len(reports), todo=len(todo), mode=confinement.mode))
    if not entries:
        log(tr("no notebook found in {paths}: give notebooks, a folder of them, or a class folder "
               "of <student>/<notebook>.ipynb (or <student>/<assignment>/<notebook>.ipynb)").format(
            paths=", ".join(str(p) for p in paths)))
    if todo:
        private = private_paths([sub.path for sub in entries.values()], [Path(p) for p in paths],
                                out, tests_dir)
        jobs = jobs or JOBS_PER_CPU * (os.cpu_count() or 1)
        registry = load(tests_dir, registry)
        plan = {n: (entries[n], assignment(entries[n], registry)) for n in todo}
        # the rest need no reference
        readable = [exercises for sub, exercises in plan.values() if not sub.problem]
        graded = list({e.grade_id: e for exercises in readable for e in exercises}.values())
        threading.Thread(target=oracle.warm,
                         args=(graded, sorted({language(s) for s, _ in plan.values()})),
                         # while the fork server starts
                         daemon=True, name="reference-outcomes").start()
        with Batch(budget, confinement, private, jobs) as batch, ThreadPoolExecutor(jobs) as pool:
            results: dict[str, dict[int, list]] = {}  # results[n][i]: the i-th exercise's Marks
            seconds: dict[str, float] = {}
            futures = {}

            def timed(sub, e):
                start = time.monotonic()
                return batch.exercise(sub, e, registry), time.monotonic() - start

            def write(n):  # a submission is written as soon as its last exercise is graded
                sub, exercises = plan[n]
                flat = [r for i in sorted(results[n]) for r in results[n][i]]
                with speaking(language(sub)):
                    reports[n] = results_json(flat, seconds[n], summary_line(sub, exercises, flat))
                write_json(report_path(out, n), reports[n])
                seals.record(n, entries[n], report_path(out, n))
                seals.save()  # a batch killed after this keeps the report
                # the grader's language
                log(f"[{len(reports)}/{len(entries)}] {n}: {score_line(exercises, flat)}")

            for n in todo:
                sub = entries[n]
                results[n], seconds[n] = {}, 0.0
                for i, e in enumerate(plan[n][1]):
                    futures[pool.submit(timed, sub, e)] = (n, i)
                if not plan[n][1]:
                    write(n)
            for future in as_completed(futures):
                n, i = futures[future]
                results[n][i], spent = future.result()
                seconds[n] += spent
                if len(results[n]) == len(plan[n][1]):
                    write(n)
    write_all(out, entries, reports, seals, confinement)
    if confinement.warning:
        log(tr("warning: {warning}").format(warning=tr(confinement.warning)))
    return [reports[n] for n in entries]


def student_language(entries: dict[str, Submission], student: str) -> str:
    """The language of a student's feedback page: Japanese if any of their notebooks is, else
    English."""
    langs = {language(sub) for name, sub in entries.items() if name.startswith(f"{student}/")}
    return "ja" if "ja" in langs else "en"


def write_all(out: Path, entries: dict[str, Submission], reports: dict[str, dict],
              seals: ReportSeals, confinement: Confinement) -> None:
    """Every report again from memory (no worker is left to have changed one), signed; the summary;
    for a class, the gradebook and each student's feedback page."""
    for name, sub in entries.items():
        write_json(report_path(out, name), reports[name])
        seals.record(name, sub, report_path(out, name))
    seals.save()
    write_atomic(out / "summary.csv", summary_csv(reports))
    students: dict[str, dict[str, dict]] = {}
    for name, sub in entries.items():
        if "/" in name:
            student, stem = name.split("/", 1)
            students.setdefault(student, {})[stem] = reports[name]
        else:  # a notebook on its own: its page beside its report
            with speaking(language(sub)):
                write_atomic(out / f"{file_name(name)}.feedback.html",
                             feedback_html(name, {name: reports[name]}, person=False))
    if students:
        write_atomic(out / "gradebook.csv", gradebook_csv(students))
        for student, theirs in students.items():
            with speaking(student_language(entries, student)):
                write_atomic(out / file_name(student) / "feedback.html",
                             feedback_html(student, theirs))
    if confinement.mode == "none":
        seals.forget()
