"""What isolation costs a class: 30 students x every lesson's notebook graded by `python -m course
grade`, in the strongest isolation this machine allows and with `--isolation none`, side by side.

Even students submit the solutions, odd ones the untouched exercises, in nbgrader's
`submitted/<student>/<assignment>/<notebook>.ipynb` layout. The two modes run in turn, REPEATS times
each (order alternating), on a fresh output folder each time; the figure is each mode's median, in
notebooks per second.
"""
from __future__ import annotations

import csv
import shutil
import statistics
import sys
from pathlib import Path

from bench.grading import ROOT, TIMEOUT, run

WORK = ROOT / "build" / "bench-isolation"
STUDENTS = 30
REPEATS = 2
# notebooks per second with isolation on 2 cores (issue 20: the figure before round two)
TARGET = 7.6


def lay_out(base: Path, students: int, lessons: int | None) -> tuple[Path, int]:
    """The class's submitted/ folder, with the first `lessons` notebooks (None: all); (it, the
    number of notebooks)."""
    solutions = sorted((ROOT / "solutions").glob("*.ipynb"))[:lessons]
    submitted = base / "submitted"
    for i in range(students):
        folder = submitted / f"s{i:02d}" / "course"
        folder.mkdir(parents=True)
        for nb in solutions:
            shutil.copy(ROOT / ("solutions" if i % 2 == 0 else "exercises") / nb.name,
                        folder / nb.name)
    return submitted, students * len(solutions)


def bench_isolation(students: int = STUDENTS, repeats: int = REPEATS, base: Path = WORK,
                    lessons: int | None = None) -> dict:
    shutil.rmtree(base, ignore_errors=True)
    submitted, notebooks = lay_out(base, students, lessons)
    seconds: dict[str, list[float]] = {}
    modes: dict[str, str] = {}
    for r in range(repeats):
        for isolation in (["default", "none"] if r % 2 == 0 else ["none", "default"]):
            out = base / f"out-{isolation}-{r}"
            took, done = run([sys.executable, "-m", "course", "grade", submitted, "--out", out,
                              *(["--isolation", isolation] if isolation != "default" else [])],
                             ROOT, TIMEOUT * students)
            if done is None or done.returncode:
                raise RuntimeError(f"grading failed ({isolation}): {done and done.stderr[-2000:]}")
            modes[isolation] = done.stderr.split("(isolation: ", 1)[1].split(")", 1)[0]
            with (out / "gradebook.csv").open() as f:
                totals = [float(row["total"]) for row in csv.DictReader(f)]
            if len(totals) != students:
                raise RuntimeError(f"{isolation}: {len(totals)} students in the gradebook, "
                                   f"expected {students}")
            seconds.setdefault(isolation, []).append(took)
    rates = {m: notebooks / statistics.median(s) for m, s in seconds.items()}
    return {
        "students": students,
        "notebooks": notebooks,
        "repeats": repeats,
        "modes": modes,
        "seconds": seconds,
        "per_second": rates,
        "targets": {
            f"with isolation ({modes['default']}): >= {TARGET} notebooks/s": rates["default"]
            >= TARGET
        },
    }


def table(figures: dict) -> str:
    lines = [f"{figures['students']} students x {figures['notebooks'] // figures['students']} "
             f"notebooks ({figures['notebooks']} in all), each mode {figures['repeats']} times:",
             "", "| isolation | seconds (each run) | notebooks / s (median) |", "|---|---|---:|"]
    for mode, runs in figures["seconds"].items():
        lines.append(f"| {figures['modes'][mode]} | {', '.join(f'{s:.1f}' for s in runs)} | "
                     f"{figures['per_second'][mode]:.1f} |")
    ratio = figures["per_second"]["default"] / figures["per_second"]["none"]
    return "\n".join(lines + ["", f"With isolation, {ratio:.2f}x the throughput without it."])
