"""exercises/ is generated from solutions/ (the single source), and the solutions are nbgrader
source notebooks."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest

from bench.grading import tool_env
from course.grading.classroom.assign import exercise_notebook, generate, stub

ROOT = Path(__file__).resolve().parents[2]


def test_a_solution_block_becomes_a_stub_naming_its_task_at_its_indentation():
    source = ("def f(x):\n    ### BEGIN SOLUTION\n    return x + 1\n    ### END "
              "SOLUTION\n\nprint(1)\n")
    assert stub(source, "f_id", 'Add "one"', code=True) == (
        'def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError("Exercise f_id: Add '
        '\\"one\\"")\n\nprint(1)\n')
    assert (
        stub("Why?\n### BEGIN SOLUTION\nBecause.\n### END SOLUTION", "q", "", code=False)
        == "Why?\nYOUR ANSWER HERE"
    )


def test_a_stub_wider_than_a_code_cell_splits_its_message_after_the_exercise_name():
    source = "def f(x):\n    ### BEGIN SOLUTION\n    return x\n    ### END SOLUTION\n"
    task = "Model Exercise 10.4: the overshoot bound is tight"
    out = stub(source, "worst_costs", task, code=True)
    assert out == ('def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError(\n'
                   '        "Exercise worst_costs: "\n        "Model Exercise 10.4: the overshoot '
                   'bound is tight")\n')
    assert max(len(line) for line in out.splitlines()) <= 74
    namespace = {}
    exec(out, namespace)
    with pytest.raises(NotImplementedError) as raised:
        namespace["f"](1)
    assert str(raised.value) == f"Exercise worst_costs: {task}"  # the same message, on two lines


def test_the_exercise_notebook_drops_solutions_hidden_tests_and_outputs():
    meta = {"nbgrader": {"schema_version": 3, "grade": False, "solution": True, "locked": False,
                         "grade_id": "top"}}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("### BEGIN SOLUTION\nanswer = 42\n### END SOLUTION",
                                  metadata=meta,
                                  outputs=[nbformat.v4.new_output("stream", text="42")],
                                  execution_count=3),
        nbformat.v4.new_code_cell("assert answer\n### BEGIN HIDDEN TESTS\nassert answer == 42\n"
                                  "### END HIDDEN TESTS\n")])
    out = exercise_notebook(nb, "01_x", {"top": "The answer"})
    assert out.metadata["course"] == {"assignment": "01_x"}
    assert out.cells[0].source == ('# YOUR CODE HERE\nraise NotImplementedError("Exercise top: The '
                                   'answer")')
    assert out.cells[0].metadata["tags"] == ["raises-exception"]  # a top-level stub raises when run
    assert out.cells[0].outputs == [] and out.cells[0].execution_count is None
    assert out.cells[1].source == "assert answer\n"
    assert nb.cells[0].source.startswith("### BEGIN SOLUTION")  # the solution notebook is unchanged


def comparable(path: Path) -> dict:
    """What the generator decides: every cell's type, source and metadata (less the raises-exception
    tags that executing adds to cells calling a stub), and the notebook's course stamp."""
    nb = nbformat.read(path, as_version=4)
    cells = []
    for c in nb.cells:
        meta = dict(c.metadata)
        tags = [t for t in meta.pop("tags", []) if t != "raises-exception"]
        cells.append((c.cell_type, c.source, {**meta, **({"tags": tags} if tags else {})}))
    return {"course": nb.metadata.get("course"), "cells": cells}


def test_the_committed_exercises_are_what_the_generator_makes_of_the_solutions(tmp_path):
    solutions = sorted((ROOT / "solutions").glob("*.ipynb"))
    assert solutions, "no solutions/*.ipynb"
    made = generate(ROOT / "solutions", tmp_path)
    committed = sorted((ROOT / "exercises").glob("*.ipynb"))
    assert [p.name for p in committed] == [p.name for p in made], ("run `make exercises` (python "
                                                                   "-m course assign)")
    for mine, theirs in zip(made, committed, strict=True):
        assert comparable(theirs) == comparable(mine), (f"{theirs.name} is stale: run `make "
                                                        "exercises`")


def test_every_check_cell_gives_its_exercise_s_points_which_live_in_one_place():
    """Exercise.points (the sum of its rules' points) is the source; `make exercises` writes it into
    the notebooks."""
    from course.grading.judging.registry import shipped

    points = {gid: e.points for gid, e in shipped().exercises.items()}
    for folder in ("solutions", "exercises"):
        for path in sorted((ROOT / folder).glob("*.ipynb")):
            for cell in nbformat.read(path, as_version=4).cells:
                meta = cell.metadata.get("nbgrader", {})
                if meta.get("grade"):
                    gid = meta["grade_id"].removesuffix("_check")
                    assert meta.get("points") == points[gid], (f"{folder}/{path.name} {gid}: run "
                                                               "`make exercises`")


@pytest.fixture(scope="module")
def nbgrader() -> Path:
    """nbgrader's venv, the one the grading benchmark and tests/grading/test_nbgrader_scoring.py use
    (made by `make test`, or here on first use); nbgrader's pins stay out of the course's
    environment."""
    return tool_env("nbgrader") / "nbgrader"


@pytest.mark.slow
def test_nbgrader_generates_the_assignment_from_the_solutions_and_strips_them(nbgrader, tmp_path):
    lesson = tmp_path / "source" / "lesson"
    lesson.mkdir(parents=True)
    for p in (ROOT / "solutions").glob("*.ipynb"):
        (lesson / p.name).write_bytes(p.read_bytes())
    done = subprocess.run([str(nbgrader), "generate_assignment", "lesson",
                           f"--CourseDirectory.root={tmp_path}",
                           "--no-db", "--force"], capture_output=True, text=True, cwd=tmp_path,
                          env={**os.environ, "HOME": str(tmp_path)}, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    released = sorted((tmp_path / "release" / "lesson").glob("*.ipynb"))
    assert [p.name for p in released] == sorted(p.name for p in lesson.glob("*.ipynb"))
    for path in released:
        text = path.read_text()
        blocks = (lesson / path.name).read_text().count("### BEGIN SOLUTION")
        assert blocks and "### BEGIN SOLUTION" not in text
        cells = json.loads(text)["cells"]
        stubs = sum("".join(c["source"]).count("raise NotImplementedError()") for c in cells)
        assert stubs == blocks, path.name
