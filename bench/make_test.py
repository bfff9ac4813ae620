"""`make test` on a fresh clone, timed: what a new user or CI waits for (issue 33: under 12 min on 2
cores).

The checkout's HEAD is cloned into build/ (committed work only; a new .venv, no build/ folder, so no
saved Claude Code outcome and no side venv), and `make test` runs there as a user would run it. Its
output gives the phases: the setup (Debian packages, the course's venv, its bytecode) ends when make
says the suite and the notebooks start (the side venvs and the code's checks then run beside them);
each of the two prints its pytest summary when it ends (`--output-sync=target`). uv's download cache
(~/.cache/uv) is the machine's own, as on any machine that installed the course once.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLONE = ROOT / "build" / "bench-make-test" / "course"
TARGET_MIN = 12.0
# the Makefile's line between setup and tests
SIDE_BY_SIDE = "the test suite and the notebooks run side by side"
SUMMARY = re.compile(r"^=+ (?P<counts>.*\d+ (?:passed|failed).*) in (?P<seconds>[\d.]+)s")


def phases(lines: list[tuple[float, str]]) -> dict:
    """From `make test`'s output, each line with the seconds since the start: when the setup ended,
    and the suite's and the notebooks' pytest summaries (counts, seconds) with when each ended."""
    found: dict = {}
    part = None
    for at, line in lines:
        if SIDE_BY_SIDE in line:
            found["setup_s"] = at
        elif " -m pytest " in line:  # the recipe's command, printed before its output
            part = "notebooks" if "--nbval" in line else "suite"
        elif (summary := SUMMARY.match(line)) and part:
            found[part] = {"counts": summary["counts"], "seconds": float(summary["seconds"]),
                           "ended_s": at}
    return found


def bench_make_test(clone: Path = CLONE, command: tuple[str, ...] = ("make", "test")) -> dict:
    """Clone HEAD afresh, run `make test` in it, and time it."""
    shutil.rmtree(clone, ignore_errors=True)
    clone.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout.strip()
    env = {k: v for k,
           v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "COURSE_", "PYTEST"))}
    started, lines = time.monotonic(), []
    with subprocess.Popen(command, cwd=clone, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True) as make:
        for line in make.stdout:
            lines.append((time.monotonic() - started, line.rstrip("\n")))
    total = time.monotonic() - started
    passed = make.returncode == 0
    return {"command": " ".join(command), "commit": commit, "cores": os.cpu_count(),
            "returncode": make.returncode,
            "total_s": total, **phases(lines), "tail": [line for _, line in lines[-15:]],
            "targets": {f"`make test` on a fresh clone passes in under {TARGET_MIN:g} min on 2 "
                        "cores":
                        passed and total <= TARGET_MIN * 60 and os.cpu_count() == 2}}


def table(result: dict) -> str:
    def part(name: str) -> str:
        got = result.get(name)
        return f"{got['seconds']:.0f} s ({got['counts']})" if got else ("no summary (see the tail "
                                                                        "of the output)")

    setup = f"{result['setup_s']:.0f} s" if "setup_s" in result else "did not end"
    rows = ["| commit | cores | result | total | setup | test suite | notebooks |",
            "|---|---:|---|---:|---:|---|---|",
            f"| {result['commit']} | {result['cores']} | "
            f"{'passed' if result['returncode'] == 0 else 'failed'} | {result['total_s'] / 60:.1f} "
            f"min | {setup} | {part('suite')} | {part('notebooks')} |"]
    return "\n".join(rows) + (f"\n\nCommand: `{result['command']}` in a fresh clone of the "
                              "checkout's HEAD.")
