"""Exercise 14's worst case: the notebook of a student whose `gated_run` and `limited_run` never
return, graded by `python -m course grade` as an instructor does (no saved outcomes: the reference's
CLI runs are made in the batch), one notebook at a time, timed from the command's start to its end.

Each kind of hang replaces both solution cells (decide stays the solution's, 2 points); beside them
the solution itself (every case runs the CLI: the honest student's time), a student that waits 8 s
in every call, then runs as the solution does (the grader runs an exercise's first case alone, then
the others at once: its later calls wait side by side), and one with two known mistakes
(its hints run the mistakes' CLI runs: no saved outcomes).
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat

from bench.grading import ROOT, run

NOTEBOOK = "14_the_agent_sdk.ipynb"
TIMEOUT = 600.0  # seconds a grade command may take before it is recorded as a hang
TARGET_S = 30.0  # a notebook whose runs never return, graded whole
RATIO = 1.5  # its time over the solution's (issue 27: before, 45 s per rule it failed)
SOLVED = {"gated_run": "", "limited_run": ""}  # the solution's cells, unchanged
SLEEPS = "async def {name}(*args):\n    await asyncio.sleep(1e9)\n"
GATE_HANGS = '''async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
        await asyncio.sleep(1e9)

    result = None
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        if isinstance(message, ResultMessage):
            result = message
    return result
'''  # noqa: E501
ENDLESS = '''async def {name}(prompt, options, *limits):
    async def forever():
        while True:
            await asyncio.sleep(0.01)
            yield None

    async for message in forever():
        pass
'''
SLOW = '''async def {name}(*args):
    await asyncio.sleep({wait})
    return await solution(*args)
'''


def both(source: str) -> dict[str, str]:
    return {name: source.format(name=name) for name in ("gated_run", "limited_run")}


WAIT_S = 8  # seconds the slow student waits in every call
SLOWS = f"{WAIT_S} s in every call, then right"
# two known mistakes, whose hints run the mistakes' own CLI runs in the batch
MISTAKES = "every call allowed; max_budget_usd left out"
# kind -> {grade_id: the cell's new source}; "" keeps the solution's
KINDS = {
    "solution": SOLVED,
    "can_use_tool hangs (limited_run sleeps)": {**both(SLEEPS), "gated_run": GATE_HANGS},
    "asyncio.sleep(1e9) before query()": both(SLEEPS),
    "while True: pass": both("async def {name}(*args):\n    while True:\n        pass\n"),
    "time.sleep(1e9)": both("async def {name}(*args):\n    time.sleep(1e9)\n"),
    "async iteration that never ends": both(ENDLESS),
    "query() run, then waits forever": both("async def {name}(prompt, options, *limits):\n"
                                            "    async for message in query(prompt=prompt, "
                                            "options=options):\n"
                                            "        pass\n    await asyncio.Event().wait()\n"),
    SLOWS: both(SLOW.replace("{wait}", str(WAIT_S))),
    MISTAKES: {"gated_run": "async def gated_run(prompt, options, deny):\n"
                            "    return await solution(prompt, options, [])\n",
               "limited_run": "async def limited_run(prompt, options, max_turns, max_budget_usd):\n"
                              "    return await solution(prompt, options, max_turns, None)\n"},
}
HANGS = [k for k in KINDS if k not in ("solution", SLOWS, MISTAKES)]


def write(kind: str, folder: Path) -> Path:
    """The solution notebook with the kind's cells; a replaced function can call the solution's as
    `solution`."""
    nb = nbformat.read(ROOT / "solutions" / NOTEBOOK, as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if KINDS[kind].get(grade_id):
            cell.source = (
                cell.source.replace(f"async def {grade_id}(", "async def solution(")
                + "\n\n"
                + KINDS[kind][grade_id]
            )
    nb.cells[1].source = "import asyncio, time\n" + nb.cells[1].source
    folder.mkdir(parents=True)
    nbformat.write(nb, folder / NOTEBOOK)
    return folder / NOTEBOOK


def bench_cli_worst_case() -> dict:
    rows = []
    base = Path(tempfile.mkdtemp(prefix="bench-cli-worst-"))
    try:
        for i, kind in enumerate(KINDS):
            path = write(kind, base / f"k{i}")
            seconds, done = run([sys.executable, "-m", "course", "grade", path, "--out",
                                 base / f"out{i}"], ROOT,
                                TIMEOUT)
            report = (
                json.loads((base / f"out{i}" / NOTEBOOK.replace(".ipynb", ".json")).read_text())
                if done
                else {}
            )
            tests = report.get("tests", [])
            rows.append({"kind": kind, "seconds": seconds, "score": report.get("score"),
                         "not_run": sum(t["output"].startswith("not run: ") for t in tests),
                         "stopped": sum(t["output"].startswith("with ")
                                        and ": your function was stopped: " in
                                        t["output"] for t in tests)})
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return {"rows": rows, "targets": targets(rows)}


def targets(rows: list[dict]) -> dict[str, bool]:
    """A hang costs about what the solution does (a ratio: both slow down with the machine's load),
    and under 30 s; so does a function slow on every call, which keeps its points."""
    worst = max(r["seconds"] for r in rows if r["kind"] in HANGS)
    ratio = worst / rows[0]["seconds"]
    slow = next(r for r in rows if r["kind"] == SLOWS)
    return {f"the slowest notebook whose runs never return takes at most {RATIO:g}x the solution's "
            f"time (worst: {ratio:.2f}x)": ratio <= RATIO,
            f"every notebook whose runs never return graded in < {TARGET_S:g} s (worst: "
            f"{worst:.1f} s)":
                worst < TARGET_S,
            f"the notebook {WAIT_S} s slow in every call takes at most the solution's time plus "
            f"two of its waits, the first case's and the others' side by side "
            f"({slow['seconds']:.1f} s <= {rows[0]['seconds']:.1f} + 2 x {WAIT_S} s), every point "
            f"kept ({slow['score']})":
                slow["seconds"] <= rows[0]["seconds"] + 2 * WAIT_S and slow["score"] == 7.5,
            f"the notebook {WAIT_S} s slow in every call graded in < {TARGET_S:g} s "
            f"({slow['seconds']:.1f} s)": slow["seconds"] < TARGET_S,
            "the solution gets every point (7.5)": rows[0]["score"] == 7.5}


def table(figures: dict) -> str:
    lines = ["| student's gated_run and limited_run | graded in s | points of 7.5 | rules stopped "
             "| rules not run |",
             "|---|---:|---:|---:|---:|"]
    for r in figures["rows"]:
        lines.append(f"| {r['kind']} | {r['seconds']:.1f} | {r['score']} | {r['stopped']} | "
                     f"{r['not_run']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(bench_cli_worst_case()))
