"""Lesson 14 runs the genuine Claude Code CLI, which writes facts of its machine into every request
(its shell, home, working directory) and so into the token counts and the cost the lesson prints.
Both editions of the lesson, from another checkout path, under another shell, home and temporary
folder, print what they committed, cell by cell (strict nbval). `make test`'s notebook pass leaves
these two to this test, so the CLI runs them once."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[1]
LESSONS = ("notebooks/14_the_agent_sdk.ipynb", "notebooks/ja/14_the_agent_sdk.ipynb")
NBVAL = ("--nbval", "--nbval-current-env", "--nbval-cell-timeout=120", "--nbval-sanitize-with",
         "tests/nbval_sanitize.cfg")  # as the Makefile's


def copied_checkout(to: Path) -> Path:
    """The checkout's tracked files as they are now, copied to `to`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, to / name)
    return to


def test_lesson_14_prints_its_committed_outputs_from_another_checkout_shell_home_and_temporary_folder(  # noqa: E501
    tmp_path,
):
    checkout = copied_checkout(tmp_path / "elsewhere" / "a-checkout-of-the-course-at-another-path")
    (tmp_path / "another-home").mkdir()
    (tmp_path / "another-temporary-folder").mkdir()
    env = {k: v for k,
           v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "COURSE_LIVE", "PYTHONPATH")}
    env.update(PYTHONPATH=str(checkout), COURSE_LANG="en", SHELL="/bin/dash",
               HOME=str(tmp_path / "another-home"),
               TMPDIR=str(tmp_path / "another-temporary-folder"))
    where = subprocess.run([sys.executable, "-c", "import course; print(course.__file__)"], env=env,
                           cwd=checkout, capture_output=True, text=True, check=True).stdout
    assert where.startswith(str(checkout)), f"the kernels would import the course from {where}"
    # the two editions side by side, a pytest worker and a kernel each
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-n", "2", "--dist", "loadfile", *NBVAL, *LESSONS],
                          env=env, cwd=checkout, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
