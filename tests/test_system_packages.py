"""A machine without bubblewrap, simulated by a PATH without `bwrap` (nothing is installed or
removed here): as root with apt-get, `make test`'s first step asks apt-get for it (a fake that
records); without apt-get, it says what to install and which tests skip, and those tests skip with
that reason, counted in pytest's summary."""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from system_packages import PACKAGES

from course.grading.classroom.sandbox import confinement

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
# tests/conftest.py by its path: `from conftest import` finds whichever conftest.py pytest imported
# first
_spec = importlib.util.spec_from_file_location("tests_root_conftest",
                                               Path(__file__).parent / "conftest.py")
_conftest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_conftest)
unmet = _conftest.unmet
HIDDEN = ("bwrap", "apt-get")
SANDBOX = next(p for p in PACKAGES if p.name == "bubblewrap")


@pytest.fixture(scope="module")
def without_bwrap(tmp_path_factory) -> dict:
    """An environment whose PATH has every command of this one's but bwrap and apt-get."""
    bin = tmp_path_factory.mktemp("bin")
    for folder in os.environ["PATH"].split(os.pathsep):
        for command in Path(folder).glob("*") if Path(folder).is_dir() else []:
            if command.name not in HIDDEN and not (bin / command.name).exists():
                (bin / command.name).symlink_to(command)
    return {**os.environ, "PATH": str(bin), "PYTHONPATH": str(ROOT)}


@pytest.mark.skipif(os.geteuid() != 0, reason="make test installs packages only as root")
def test_as_root_with_apt_get_make_test_installs_what_is_missing(without_bwrap, tmp_path):
    calls = tmp_path / "calls"
    fake = tmp_path / "fake" / "apt-get"  # records what it is asked and installs nothing
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    fake.chmod(0o755)
    env = {**without_bwrap, "PATH": f"{fake.parent}{os.pathsep}{without_bwrap['PATH']}"}
    said = subprocess.run([sys.executable, "tests/system_packages.py"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert said.returncode == 0 and "make test: installing bubblewrap (apt-get)" in said.stdout
    assert calls.read_text().splitlines() == ["update -qq", "install -y -qq bubblewrap"]
    # the fake installed nothing: still missing
    assert "sudo apt-get install -y bubblewrap" in said.stderr


def test_make_test_says_first_what_to_install_and_which_tests_skip(without_bwrap):
    said = subprocess.run([sys.executable, "tests/system_packages.py"], cwd=ROOT, env=without_bwrap,
                          capture_output=True, text=True, timeout=60)
    assert said.returncode == 0 and "installing" not in said.stdout
    assert "sudo apt-get install -y bubblewrap" in said.stderr
    assert "tests/grading/test_grading_isolation.py (marked bwrap)" in said.stderr


def test_the_sandbox_tests_skip_with_the_reason_and_are_counted(without_bwrap):
    target = "tests/grading/test_grading_isolation.py"
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", target], cwd=ROOT,
                         env=without_bwrap, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]
    # every test the file holds skipped: the summary counts each outcome, and names no other
    skipped = re.search(r"^(\d+) skipped in ", run.stdout.splitlines()[-1])
    assert skipped and int(skipped[1]) > 5, run.stdout
    assert SANDBOX.reason in run.stdout and "apt-get install -y bubblewrap" in SANDBOX.reason


def test_a_bubblewrap_that_cannot_create_namespaces_skips_the_sandbox_tests_too(monkeypatch):
    monkeypatch.setattr(SANDBOX, "present", lambda: True)
    monkeypatch.setattr(confinement, "bwrap_works", lambda as_root: False)
    assert "bubblewrap is installed but cannot create namespaces" in unmet.__wrapped__()["bwrap"]
    monkeypatch.setattr(confinement, "bwrap_works", lambda as_root: True)
    assert "bwrap" not in unmet.__wrapped__()
