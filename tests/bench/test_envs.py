"""bench/envs.py: a side venv is built once, even when make test and a test that needs it ask at the
same time."""
from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from bench.envs import once


def build_slowly(stamp: Path, log: Path) -> None:
    def build():
        with log.open("a") as f:
            f.write("built\n")
        time.sleep(0.5)  # the other caller asks while this build runs

    once(stamp, "v1", build)


def test_two_callers_at_once_build_once_and_a_new_version_builds_again(tmp_path):
    stamp, log = tmp_path / "venv" / ".installed", tmp_path / "builds.log"
    stamp.parent.mkdir()
    callers = [multiprocessing.get_context("fork").Process(target=build_slowly, args=(stamp, log))
               for _ in range(2)]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join(30)
    assert log.read_text() == "built\n" and stamp.read_text() == "v1"
    once(stamp, "v2", lambda: log.write_text(log.read_text() + "rebuilt\n"))
    assert log.read_text() == "built\nrebuilt\n" and stamp.read_text() == "v2"
