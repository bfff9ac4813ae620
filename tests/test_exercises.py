"""The graded exercises: every solution gets full marks; every wrong implementation in tests/mistakes/
loses marks on a check whose hint names its mistake."""
from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from course.grading import checks, registry
from course.grading.notebook_context import NotebookContext
from course.grading.verdict import run_exercise

ROOT = Path(__file__).resolve().parent.parent
MISTAKES = sorted((ROOT / "tests" / "mistakes").glob("*.py"))
REGISTRY = registry.shipped()


def grade(grade_id: str, fn) -> list:
    """One Verdict per check of the exercise, with the notebook's in-process Context."""
    return run_exercise(REGISTRY.exercise(grade_id), NotebookContext(fn, REGISTRY))


def notebooks() -> dict[str, dict]:
    """grade_id -> the namespace of its solution notebook, made by running every cell but the checks."""
    found = {}
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        namespace: dict = {}
        for cell in cells:
            if not cell.metadata.get("nbgrader", {}).get("grade"):
                exec(compile(cell.source, f"<{path.name}>", "exec"), namespace)
        for cell in cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                found[meta["grade_id"]] = namespace
    return found


SOLUTIONS = notebooks()


@pytest.mark.parametrize("exercise", checks.EXERCISES, ids=lambda e: e.grade_id)
def test_solution_gets_full_marks(exercise):
    assert exercise.grade_id in SOLUTIONS, f"no solution cell for {exercise.grade_id} in solutions/"
    results = grade(exercise.grade_id, SOLUTIONS[exercise.grade_id][exercise.function])
    assert [(r.name, r.reason) for r in results if not r.passed] == []


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_mistake_loses_marks_and_is_named(path):
    source = path.read_text()
    meta = {}
    exec(compile(source, str(path), "exec"), meta)
    exercise = checks.exercise(meta["GRADE_ID"])
    results = grade(exercise.grade_id, meta[exercise.function])
    assert sum(r.score for r in results) < exercise.points, f"{path.name} got full marks"
    hints = [r.hint for r in results if not r.passed]
    assert meta["MISTAKE"] in hints, f"{path.name}: expected the hint {meta['MISTAKE']!r}, got {hints}"


def test_every_exercise_has_a_notebook_cell_and_unique_id():
    ids = [e.grade_id for e in checks.EXERCISES]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(SOLUTIONS)


def stub(*args, **kwargs):
    raise NotImplementedError("the exercise's stub")


@pytest.mark.parametrize("exercise", checks.EXERCISES, ids=lambda e: e.grade_id)
def test_a_stub_fails_every_check(exercise):
    results = grade(exercise.grade_id, stub)
    assert [r.name for r in results if r.passed] == []
    assert all(r.reason.startswith("not implemented yet") for r in results)


def test_on_the_wire_the_solution_gets_full_marks_and_a_mistake_is_named(tmp_path):
    from course.grading.batch import grade_batch

    solution = ROOT / "solutions" / "03_the_first_loop.ipynb"
    wrong = nbformat.read(solution, as_version=4)
    mistake = ROOT / "tests" / "mistakes" / "l03_one_message_each.py"
    source = mistake.read_text()
    function = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    for cell in wrong.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "agent_loop":
            cell.source = ast.get_source_segment(source, function)  # the student's cell: the function alone
    nbformat.write(wrong, tmp_path / "wrong.ipynb")
    right, bad = grade_batch([solution, tmp_path / "wrong.ipynb"], tmp_path / "out", log=lambda line: None)
    assert right["score"] == checks.exercise("agent_loop").points
    meta: dict = {}
    exec(compile(source, str(mistake), "exec"), meta)
    failed = [t["output"] for t in bad["tests"] if t["status"] == "failed"]
    assert failed and all(meta["MISTAKE"] in output for output in failed)
