"""`python -m bench`: run every benchmark and rewrite docs/BENCHMARKS.md with the figures.

`python -m bench loop grading` runs only those, prints their tables and rewrites only their sections
of the file. `python -m bench make_test` (`make test` on a fresh clone, 20 min or more on 2 cores,
and the machine's whole) runs only when named: a whole run keeps its section as it was.
"""
from __future__ import annotations

import datetime
import importlib
import importlib.metadata
import json
import os
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "BENCHMARKS.md"
FIGURES = ROOT / "build" / "bench-figures.json"  # the raw figures of the last run
PACKAGES = ["anthropic", "httpx2", "pydantic", "jsonschema", "nbclient", "ipykernel",
            "claude-agent-sdk"]
# name -> (module, function, title, what it measures)
BENCHMARKS = {
    "loop": ("bench.loop", "bench_loop", "Loop: per-call overhead",
             "The always_tool scenario (every response asks for one more search) run for N turns, "
             "N+1 model calls, through the genuine SDK client. *ours*: `course.loop.Agent` on the "
             "local API (validation, policy, usage, loop). *tool_runner*: the SDK's "
             "`client.beta.messages.tool_runner` with a `@beta_tool` and `max_iterations=N+1` on "
             "the same local API (`thread=False`, so it re-sends the history as ours does). "
             "*floor*: the same SDK client on an `httpx2.MockTransport` returning canned Message "
             "JSON (no validation, no policy, no loop), sending exactly ours' request bodies. Each "
             "request re-sends the whole history, so ms/call is the mean over a run and grows with "
             "N. Runs are interleaved (order rotated each repetition); figures are medians, ratios "
             "are medians of ratios paired within a repetition."),
    "grading": ("bench.grading", "bench_grading", "Grading: throughput and hostile submissions",
                "20 submissions of lesson 03's `agent_loop` built from "
                "`solutions/03_the_first_loop.ipynb`: 8 correct, 4 partially wrong (from "
                "`course/grading/judging/mistakes/`), 8 hostile. nbgrader and otter-grader run "
                "from their own venvs under `build/bench-envs/` with the same checks as ours, one "
                "test cell (otter: test case) per check, calling the course's in-kernel check "
                "runner; the last two are hidden tests. The correct grade is what the submission's "
                "honest part (the function without the hostile lines; the stub for cheats) earns "
                "from the course's checks. Every tool is run as a command, in turn, on the same "
                "machine. The solution notebook's own test cell, `check(\"agent_loop\", "
                "agent_loop)`, prints a report and never raises, so as an nbgrader test cell it "
                "would score every submission full; hence one asserting cell per check for "
                "nbgrader and otter. Hostile cases: `while_true`, `os_exit`, `sys_exit` and "
                "`input` follow a correct function in the graded cell; `set_custom_exc` (swallow "
                "every exception), `patch_test_runner` (make `course.grading.marks.mark.run_check` "
                "pass everything) and `rewrite_hidden_tests` (overwrite otter-format test files "
                "found near the notebook) follow the unimplemented stub; `eq_always_true` returns "
                "a `str` subclass whose `__eq__` is always True. Then a class: 30 students each "
                "submitting all 13 lesson notebooks (even students the solutions, odd ones the "
                "untouched exercises) in nbgrader's `submitted/<student>/<assignment>/` layout, "
                "graded by `python -m course grade submitted/` (confined workers) and by `nbgrader "
                "autograde` (every cell of every notebook in a kernel, the check cells' returned "
                "points as partial credit); the ratio is nbgrader's seconds over ours, and the "
                "totals are compared student by student."),
    "isolation": ("bench.isolation", "bench_isolation", "Grading a class: what isolation costs",
                  "30 students each submitting all 13 lesson notebooks (even students the "
                  "solutions, odd ones the untouched exercises) in nbgrader's "
                  "`submitted/<student>/<assignment>/` layout, graded by `python -m course grade "
                  "submitted/` in the strongest isolation the machine allows (as root: "
                  "bubblewrap's pid, IPC and network namespaces, a uid per worker, run_python in a "
                  "runner per exercise) and with `--isolation none`, in turn (order alternating), "
                  "on 2 cores. Target: at least 7.6 notebooks per second with isolation (the "
                  "figure before issue 20)."),
    "explorer": ("bench.explorer", "bench_explorer", "Explorer widget: key press to view changed",
                 "The loop explorer in JupyterLab in headless Chromium (Playwright) at 1024 px "
                 "with the file browser open, per scenario, with the reference loop and with a "
                 "student's lesson-03 loop (`Explorer(loop=agent_loop)`, run on the local API and "
                 "read back from the wire): pick the scenario, which sets the explorer running the "
                 "other 15 max_turns settings ahead in the background; while it does, press Home "
                 "and up to 8 ArrowRight on the step slider (redraws), then ArrowLeft 9 times on "
                 "the max_turns slider (10 to 1: new runs, unless run ahead already) and "
                 "ArrowRight 9 times (runs kept). A key is pressed 0.2 s after the last change "
                 "showed, as a learner reads the view; the explorer runs ahead in these gaps and "
                 "steps aside while a control moves. Each change is timed in the page from keydown "
                 "to the first animation frame after the frame view's DOM changed to a frame (the "
                 "explorer shows 'running the loop...' while a run is made: no frame, the change "
                 "goes on). The explorer switches frames in the page for every run the kernel has "
                 "sent it (the step slider always, max_turns once its run is made) and asks the "
                 "kernel only for a run not made yet; p50 and p95 are nearest-rank over a "
                 "scenario's changes, and over every change of a loop. Scenario by scenario, the "
                 "two loops in turn (each first every other scenario), and after each, 12 keys on "
                 "a plain ipywidgets IntSlider whose observer sets an HTML widget, timed the same "
                 "way in the same page: the widget round trip alone, under the same load, so the "
                 "explorer's p95 over the plain slider's p95 is what the explorer adds, whatever "
                 "the machine's load (issue 30: at most 1.2x). Below, the kernel's share without a "
                 "front end. Target: p95 <= 100 ms per change (issue 22; issue 7: 150 ms with the "
                 "student's loop)."),
    "relay": ("bench.relay", "bench_relay", "Workshop relay: added latency and exact accounting",
              "80 simulated students (threads with the genuine SDK client) each send the same "
              "request direct to the course's local API on loopback and through `python -m course "
              "relay` (its own process, forwarding to that local API), in pairs, paced a few "
              "seconds apart; a first untimed pair opens the connections. Latencies are "
              "client-side wall times in this process, which also runs the local API: the direct "
              "path is the floor. Then the relay's usage CSV is reconciled student by student with "
              "the requests and usage the local API recorded."),
    "class": ("bench.class_speed", "bench_class_speed",
              "Grading a class: this tree against a baseline commit",
              "30 students each submit all 13 lesson notebooks (even students the solutions, odd "
              "ones the untouched exercises) in nbgrader's layout; `python -m course grade "
              "submitted/` grades them with this tree's grader and with a baseline commit's (a git "
              "worktree under build/: main before issues 19 and 20), on the same notebooks, with "
              "isolation as configured (bubblewrap and a uid per worker as root), each with its "
              "own default jobs (this tree: two exercises per core; the baseline: one). Runs "
              "alternate, the order rotating each repetition; the ratio is the median of paired "
              "ratios."),
    "workshop": ("bench.workshop", "bench_workshop", "Workshop: a JupyterHub room on one machine",
                 "A real JupyterHub (`jupyterhub` from PyPI and `configurable-http-proxy` from "
                 "npm, installed into `build/workshop/`) runs `workshop/jupyterhub_config.py` on "
                 "loopback. N simulated students arrive at once; each logs in with the room "
                 "password, waits for its server, opens JupyterLab (the OAuth round trip), opens "
                 "the lesson in a session and runs its code cells over the kernel's websocket, as "
                 "a browser does. Times are from login; memory is measured with every kernel still "
                 "alive: resident MB of the student's server and kernel, and MB unique to the "
                 "student (private pages), medians over students; CPU s is what the student's "
                 "processes used. N grows until a room fails or the next would leave too little "
                 "memory for the machine's other users."),
    "claude_code": ("bench.claude_code", "bench_claude_code",
                    "Claude Code: one run on the toy model",
                    "The Claude Code CLI that `claude-agent-sdk` bundles, `claude -p PROMPT "
                    "--output-format json`, against `python -m course serve --scenario NAME` on "
                    "loopback, with the environment of `course/agent_sdk.py` (base URL, token, no "
                    "side traffic, a scratch HOME) and a fresh copy of the scenario's files as its "
                    "working directory. A run is timed from the CLI's start to its exit, the "
                    "server already listening: the 9.3 prompt (Bash lists the files: 2 requests) "
                    "and Example 4.3 (Bash, Read, Edit: 4 requests, the file fixed). Beside it, "
                    "the same scenario run by `course.loop.Agent` in-process, with the course's "
                    "tools."),
    "cli_worst_case": ("bench.cli_worst_case", "bench_cli_worst_case",
                       "Exercise 14: a student whose runs never return",
                       "The solution notebook of lesson 14 with both `gated_run` and `limited_run` "
                       "replaced by a function that never returns, one kind of hang each (its "
                       "`decide` stays right: 2 of 7.5 points), graded alone by `python -m course "
                       "grade NOTEBOOK --out DIR` as an instructor does (isolation as the machine "
                       "allows, no saved outcomes: the batch runs the reference's CLI runs "
                       "itself), timed from the command's start to its end. The grader runs such "
                       "an exercise's first case alone, then the others at once, a worker each, "
                       "each call within the call limit (15 s), and grades them as if run one "
                       "after another (a case after the first one stopped is not run): a hang "
                       "costs one call limit per exercise, any other function two at most, and "
                       "the two exercises run side by side. Beside them the solution (7.5 points: "
                       "every case runs the CLI), a function that waits 8 s in every call, then "
                       "runs as the solution does (its later calls wait side by side), "
                       "and one with two known mistakes (every call allowed, the budget left out: "
                       "their hints run the mistakes' CLI runs). Before issue 27 item 8 (each "
                       "exercise's cases one after another), this benchmark on commit 92be4f7's "
                       "tree at a load average of 7 to 10: the solution 37.5 s, the hangs 32.9 to "
                       "53.9 s, the function 8 s slow in every call 76.7 s. Before that, on commit "
                       "03ebb8c's tree (a 45 s limit, each rule's first case run), at a load "
                       "average of 3 to 5: the solution 25.3 s, the sleep before query() 142.9 s, "
                       "query() then waiting forever 143.6 s (5.7x the solution)."),
    "make_test": ("bench.make_test", "bench_make_test", "make test: a fresh clone, every check",
                  "`make test` in a fresh `git clone` of the checkout's HEAD (a new .venv and no "
                  "build/: no side venv and no saved Claude Code outcome yet; uv's download cache "
                  "is the machine's), timed from the command's start to its end. Setup is the "
                  "Debian packages, the venvs, ruff and the bytecode, until make starts the test "
                  "suite (pytest on two workers) and the notebooks (strict nbval) side by side; "
                  "each of the two is timed by its own pytest. Run only when named (`python -m "
                  "bench make_test`): it takes the machine for 20 minutes or more, so a whole "
                  "`make bench` keeps the section as it was, with its date."),
}
ON_DEMAND = {"make_test"}  # run only when named; a whole run keeps their sections


def available() -> dict:
    """name -> the benchmark's module."""
    return {name: importlib.import_module(module) for name, (module, *_rest) in BENCHMARKS.items()}


def version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine() -> list[str]:
    envs = ROOT / "build" / "bench-envs"
    tools = [(envs / t / ".installed").read_text() for t in ("nbgrader", "otter")
             if (envs / t / ".installed").exists()]
    return [f"- CPU cores: {os.cpu_count()} ({platform.machine()}, {platform.system()} "
            f"{platform.release()})",
            f"- Python {platform.python_version()}; " + ", ".join(
                f"{p} {version(p)}" for p in PACKAGES),
            f"- grading tools (own venvs): {', '.join(tools) or 'none installed'}"]


def render(records: dict, modules: dict) -> str:
    """The document: how it is made, the machine, then each benchmark's run, method, tables and
    targets."""
    lines = ["# Benchmarks", "",
             "Written by `make bench` (`.venv/bin/python -m bench`), which runs every benchmark "
             "and rewrites this file; `python -m bench NAME...` re-runs only those sections. Do "
             "not edit it by hand. The machine is shared: figures are ratios measured side by side "
             "in one run, and absolute times are only indicative.",
             "", *machine(), ""]
    for name, record in records.items():
        lines += [section(name, record, modules[name]), ""]
    return "\n".join(lines).rstrip() + "\n"


def section(name: str, record: dict, module) -> str:
    """One benchmark's section: its run, method, tables and targets."""
    _module, _fn, title, what = BENCHMARKS[name]
    result = record["figures"]
    lines = [f"## {title}", "",
             f"Run of {record['started']} UTC, {record['minutes']:.1f} minutes; load average "
             f"{record['load'][0]:.1f} at the start, {record['load'][1]:.1f} at the end.", "",
             what, "", module.table(result), ""]
    lines += [f"- {'met' if met else '**not met**'}: {target}" for target,
              met in result.get("targets", {}).items()]
    return "\n".join(lines).rstrip()


def rewrite_sections(doc: str, records: dict, modules: dict) -> str:
    """The document with the sections of `records` replaced (or added, in BENCHMARKS order), the
    rest kept."""
    parts = re.split(r"(?m)^(?=## )", doc)
    head, sections = parts[0], {p.splitlines()[0][3:]: p.rstrip() for p in parts[1:]}
    for name, record in records.items():
        sections[BENCHMARKS[name][2]] = section(name, record, modules[name])
    titles = [title for _, _, title, _ in BENCHMARKS.values()]
    order = [t for t in titles if t in sections] + [t for t in sections if t not in titles]
    return head.rstrip() + "\n\n" + "\n\n".join(sections[t] for t in order) + "\n"


def kept_on_demand(doc: str, old: str) -> str:
    """`doc` with the on-demand benchmarks' sections of the `old` document it replaces, where `doc`
    has none."""
    parts = re.split(r"(?m)^(?=## )", doc)
    have = {p.splitlines()[0][3:] for p in parts[1:]}
    titles = {BENCHMARKS[name][2] for name in ON_DEMAND} - have
    kept = [p.rstrip() for p in re.split(r"(?m)^(?=## )", old)[1:]
            if p.splitlines()[0][3:] in titles]
    return "\n\n".join([doc.rstrip(), *kept]) + "\n"


def measure(name: str, module) -> dict:
    """Run one benchmark: its figures, when it started, how long it took, the load average around
    it."""
    started, clock, load = datetime.datetime.now(datetime.UTC), time.monotonic(), os.getloadavg()[0]
    figures = getattr(module, BENCHMARKS[name][1])()
    return {"figures": figures, "started": f"{started:%Y-%m-%d %H:%M}",
            "minutes": (time.monotonic() - clock) / 60, "load": [load, os.getloadavg()[0]]}


def main(argv: list[str]) -> int:
    modules = available()
    chosen = argv or [name for name in modules if name not in ON_DEMAND]
    unknown = [n for n in chosen if n not in modules]
    if unknown:
        print(f"unknown benchmark {', '.join(unknown)}; available: {', '.join(modules)}",
              file=sys.stderr)
        return 2
    if not argv:
        FIGURES.unlink(missing_ok=True)
    for name in chosen:
        print(f"running {name}...", file=sys.stderr, flush=True)
        record = measure(name, modules[name])
        print(modules[name].table(record["figures"]), flush=True)
        # merged into the file after each benchmark: a later failure loses nothing
        records = {**(json.loads(FIGURES.read_text()) if FIGURES.exists() else {}), name: record}
        FIGURES.parent.mkdir(exist_ok=True)
        FIGURES.write_text(json.dumps(records, indent=1))
    if all(name in records for name in modules if name not in ON_DEMAND):
        DOC.parent.mkdir(exist_ok=True)
        whole = render({name: records[name] for name in modules if name in records}, modules)
        DOC.write_text(kept_on_demand(whole, DOC.read_text() if DOC.exists() else ""))
        print(f"wrote {DOC.relative_to(ROOT)}", file=sys.stderr)
    elif DOC.exists():
        # some figures only: their sections are rewritten, the others kept as they were
        DOC.write_text(rewrite_sections(DOC.read_text(), {name: records[name] for name in chosen},
                                        modules))
        print(f"rewrote {', '.join(chosen)} in {DOC.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
