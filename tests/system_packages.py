"""The Debian packages the tests need beside PyPI and npm, and which tests skip without each.

`make test` runs this file first (`PYTHONPATH=. python3 tests/system_packages.py`): as root with
apt-get it installs what is missing; otherwise it says what to install and which tests will skip.
tests/conftest.py skips those tests with the same words, so pytest's summary line counts them.
Standard library only: it runs before the venv exists.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass

from bench.jupyter_lab import CHROMIUM


def japanese_font() -> bool:
    """fontconfig knows a font with Japanese glyphs."""
    if not shutil.which("fc-list"):
        return False
    return bool(
        subprocess.run(["fc-list", ":lang=ja"], capture_output=True, text=True).stdout.strip())


@dataclass
class Package:
    name: str  # the Debian package
    present: Callable[[], bool]
    marker: str  # the pytest marker of the tests that skip without it
    tests: str  # those tests, in words
    why: str  # what they need it for

    @property
    def reason(self) -> str:
        """The skip reason: what is missing, what for, and the command that installs it."""
        return f"{self.name} is not installed ({self.why}): apt-get install -y {self.name}"


PACKAGES = [
    Package("bubblewrap", lambda: bool(shutil.which("bwrap")), "bwrap",
            "the hostile-class tests, tests/grading/test_grading_isolation.py",
            "the grader's sandbox"),
    Package("chromium", lambda: os.path.exists(CHROMIUM), "browser",
            "the browser tests, tests/views/test_browser.py", "JupyterLab as students see it"),
    Package("fonts-ipafont-gothic", japanese_font, "japanese_font",
            "the Japanese lesson in the browser test",
            "a Japanese font, to lay out the Japanese lesson"),
]


def missing() -> list[Package]:
    return [p for p in PACKAGES if not p.present()]


def install(packages: list[Package]) -> None:
    """apt-get install, quietly; a failure is reported, not raised (the tests that need them
    skip)."""
    names = [p.name for p in packages]
    print(f"make test: installing {' '.join(names)} (apt-get)", flush=True)
    quiet = {"env": {**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
             "stdout": subprocess.DEVNULL}
    if subprocess.run(["apt-get", "update", "-qq"], **quiet).returncode == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", *names], **quiet)


def main() -> int:
    lacking = missing()
    if lacking and os.geteuid() == 0 and shutil.which("apt-get"):
        install(lacking)
        lacking = missing()
    if lacking:
        print("make test: missing system packages; install them with\n"
              f"    sudo apt-get install -y {' '.join(p.name for p in lacking)}\n"
              "until then these tests skip (pytest's summary line counts them):", file=sys.stderr)
        for p in lacking:
            print(f"  - {p.tests} (marked {p.marker}): they need {p.why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
