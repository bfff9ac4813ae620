"""The Gradescope bundle, unpacked the way Gradescope lays it out and run against this
environment."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hostile.notebooks import CHECKS, write

from course.grading.classroom.gradescope import build

pytestmark = pytest.mark.slow


@pytest.fixture
def autograder(tmp_path) -> Path:
    """/autograder as Gradescope prepares it: the bundle in source/, run_autograder beside it."""
    bundle = build(tmp_path / "autograder.zip", CHECKS)
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as zf:
        zf.extractall(root / "source")
        modes = {i.filename: i.external_attr >> 16 for i in zf.infolist()}
    assert modes["run_autograder"] & stat.S_IXUSR and modes["setup.sh"] & stat.S_IXUSR
    assert modes["hidden/fixture_checks.py"] & 0o077 == 0  # the hidden checks: the owner only
    # the reference solutions (the oracle) too
    assert modes["solutions/03_the_first_loop.ipynb"] & 0o077 == 0
    (root / "run_autograder").write_bytes((root / "source" / "run_autograder").read_bytes())
    (root / "submission").mkdir()
    (root / "results").mkdir()
    return root


def run_autograder(root: Path) -> dict:
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "AUTOGRADER_PYTHON": sys.executable}
    done = subprocess.run(["bash", str(root / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_bundle_grades_a_submission_into_results_json(autograder):
    write(autograder / "submission" / "my_notebook.ipynb")
    results = run_autograder(autograder)
    assert results["score"] == 5 and results["visibility"] == "visible"
    assert [t["name"] for t in results["tests"]] == [
        "ask: sends one valid request with the prompt", "ask: returns the answer's text",
        "lookup: runs the two searches through run_tool", "lookup: returns the year as a number"]
    assert {(t["status"], t["visibility"]) for t in results["tests"]} == {
        ("passed", "after_published")
    }
    assert (
        isinstance(results["execution_time"], float)
        and "my_notebook.ipynb: 5/5" in results["output"]
    )


def test_a_submission_without_a_notebook_still_gets_results(autograder):
    (autograder / "submission" / "notes.txt").write_text("forgot the notebook")
    results = run_autograder(autograder)
    assert results["score"] == 0 and results["tests"] == []
    assert "No .ipynb notebook was found in the submission." in results["output"]


def test_setup_installs_the_bundled_course_and_locks_the_hidden_checks(autograder):
    setup = (autograder / "source" / "setup.sh").read_text()
    assert "/autograder/venv/bin/pip install /autograder/source/course_src" in setup
    assert "chmod -R go-rwx /autograder/source/hidden" in setup
    assert "chmod -R go-rwx /autograder/source/solutions" in setup
    assert (
        'COURSE_SOLUTIONS="$ROOT/source/solutions"' in (autograder / "run_autograder").read_text()
    )
    src = autograder / "source" / "course_src"
    checks = src / "course" / "grading" / "judging" / "checks"
    assert (src / "pyproject.toml").is_file() and (checks / "__init__.py").is_file()
    assert not list(src.rglob("__pycache__"))


def test_a_submission_that_links_to_the_reference_solution_gets_nothing_for_it(autograder):
    (autograder / "submission" / "03_the_first_loop.ipynb").symlink_to(
        autograder / "source" / "solutions" / "03_the_first_loop.ipynb")
    results = run_autograder(autograder)
    assert results["score"] == 0 and results["tests"]
    assert (
        "03_the_first_loop.ipynb is a symbolic link, which the grader does not follow"
        in results["output"]
    )


def test_copies_of_one_notebook_count_once_for_their_assignment(autograder):
    for name in ("fixture.ipynb", "fixture (1).ipynb", "fixture (2).ipynb"):
        write(autograder / "submission" / name)
    results = run_autograder(autograder)
    assert results["score"] == 5 and len(results["tests"]) == 4
    assert "2 more notebooks answer exercises another notebook answers" in results["output"]


def test_a_folder_named_like_a_notebook_is_a_folder(autograder):
    write(autograder / "submission" / "fixture.ipynb")
    (autograder / "submission" / "old.ipynb").mkdir()
    write(autograder / "submission" / "old.ipynb" / "fixture.ipynb",
          ask="def ask(client, prompt):\n    return 1\n")
    results = run_autograder(autograder)
    assert results["score"] == 5 and len(results["tests"]) == 4
