"""A class graded by `python -m course grade submitted/`, this tree's grader against a baseline
commit's, side by side.

30 students each submit every lesson's notebook (even students the solutions, odd ones the untouched
exercises), in nbgrader's layout submitted/<student>/<assignment>/<notebook>.ipynb. The baseline is
the grader before the checks compared every rule with the reference (issue 19) and before the
sandbox's second round (issue 20): a git worktree of BASELINE under build/, run on the same
notebooks with its own checks. Runs alternate (the order rotates each repetition); the figures are
medians, the ratio is the median of ratios paired within a repetition.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "bench-class"
BASELINE = "09867f5"  # main on 2026-12-01, before issues 19 and 20
STUDENTS = 30
REPEATS = 2
TIMEOUT = 3600.0


def baseline_tree(rev: str) -> Path | None:
    """A detached worktree of `rev` under build/ (made once); None when the clone lacks that
    commit."""
    tree = ROOT / "build" / f"bench-baseline-{rev}"
    if (tree / "course").is_dir():
        return tree
    done = subprocess.run(["git", "worktree", "add", "--force", "--detach", str(tree), rev],
                          cwd=ROOT, capture_output=True, text=True)
    return tree if done.returncode == 0 else None


def class_folder(base: Path, students: int, baseline: Path) -> tuple[Path, int]:
    """submitted/<student>/course/<notebook>.ipynb for every student, of the exercises both graders
    know (a newer exercise would cost the baseline nothing); (the folder, notebooks in all)."""
    submitted = base / "submitted"
    shutil.rmtree(base, ignore_errors=True)
    names = sorted({p.name for p in (ROOT / "solutions").glob("*.ipynb")}
                   & {p.name for p in (baseline / "solutions").glob("*.ipynb")})
    for i in range(students):
        folder = submitted / f"s{i:02d}" / "course"
        folder.mkdir(parents=True)
        for name in names:
            shutil.copy(ROOT / ("solutions" if i % 2 == 0 else "exercises") / name, folder / name)
    return submitted, students * len(names)


def grade(tree: Path, submitted: Path, out: Path) -> float:
    """Seconds one grader (the course package of `tree`) takes for the whole class."""
    shutil.rmtree(out, ignore_errors=True)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tree), "HOME": str(out.parent),
           "COURSE_LANG": "en"}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "course", "grade", str(submitted), "--out",
                           str(out)], cwd=tree,
                          env=env, capture_output=True, text=True, timeout=TIMEOUT)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"grading with {tree} failed: {done.stderr[-2000:]}")
    return seconds


def bench_class_speed(students: int = STUDENTS, repeats: int = REPEATS,
                      rev: str = BASELINE) -> dict:
    tree = baseline_tree(rev)
    if tree is None:
        return {"skipped": f"the baseline commit {rev} is not in this clone"}
    submitted, notebooks = class_folder(WORK, students, tree)
    times: dict[str, list[float]] = {"ours": [], "baseline": []}
    for r in range(repeats):
        order = [("ours", ROOT), ("baseline", tree)]
        for name, where in order[r % 2:] + order[: r % 2]:
            times[name].append(grade(where, submitted, WORK / f"out-{name}"))
    ratio = statistics.median(b / o for o, b in zip(times["ours"], times["baseline"], strict=True))
    ours = statistics.median(times["ours"])
    return {
        "students": students,
        "notebooks": notebooks,
        "repeats": repeats,
        "baseline": rev,
        "ours_seconds": ours,
        "baseline_seconds": statistics.median(times["baseline"]),
        "ours_per_second": notebooks / ours,
        "baseline_per_second": notebooks / statistics.median(times["baseline"]),
        "baseline_over_ours": ratio,
        "targets": {
            f"ours >= 5 notebooks/s ({notebooks / ours:.1f})": notebooks / ours >= 5,
            f"ours no slower than the baseline {rev} (its time / ours: {ratio:.2f})": ratio >= 0.95,
        },
    }


def table(f: dict) -> str:
    if "skipped" in f:
        return f"Not run: {f['skipped']}."
    return "\n".join([
        f"{f['students']} students x {f['notebooks'] // f['students']} notebooks = "
        f"{f['notebooks']} notebooks, median of {f['repeats']} alternating runs:", "",
        "| grader | seconds | notebooks / s |", "|---|---:|---:|",
        f"| this tree | {f['ours_seconds']:.1f} | {f['ours_per_second']:.1f} |",
        f"| baseline {f['baseline']} | {f['baseline_seconds']:.1f} | "
        f"{f['baseline_per_second']:.1f} |", "",
        f"Baseline time / this tree's time (paired): {f['baseline_over_ours']:.2f}."])
