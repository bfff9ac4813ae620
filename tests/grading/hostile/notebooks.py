"""Submission notebooks for the grader's tests: the fixture assignment, solved, with any cell
replaced."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CHECKS = Path(__file__).parent / "checks"  # a --tests folder: the fixture assignment

ASK = '''def ask(client, prompt):
    reply = client.messages.create(model="claude-haiku-4-5", max_tokens=100,
                                   messages=[{"role": "user", "content": prompt}])
    return reply.content[0].text
'''
LOOKUP = '''def lookup(run_tool):
    run_tool("search", {"query": "Aurora Run"})
    page = run_tool("search", {"query": "Mara Voss"})
    return int(page.split("born ")[1][:4])
'''


def solution(grade_id: str, source: str) -> nbformat.NotebookNode:
    return new_code_cell(source, metadata={"nbgrader": {"schema_version": 3, "grade": False,
                                                        "solution": True,
                                                        "locked": False, "grade_id": grade_id}})


def check_cell(grade_id: str, points: int) -> nbformat.NotebookNode:
    return new_code_cell(f'from course.grading import check\ncheck("{grade_id}", {grade_id})',
                         metadata={"nbgrader": {"schema_version": 3, "grade": True,
                                                "solution": False, "locked": True,
                                                "grade_id": f"check_{grade_id}", "points": points}})


def notebook(ask: str = ASK, lookup: str = LOOKUP,
             before: str = "import json") -> nbformat.NotebookNode:
    return new_notebook(cells=[
        new_markdown_cell("# The fixture assignment"), new_code_cell(before),
        solution("ask", ask), check_cell("ask", 2), solution("lookup", lookup),
        check_cell("lookup", 3)])


def write(path: Path, nb: nbformat.NotebookNode | None = None, **cells) -> Path:
    nbformat.write(nb or notebook(**cells), path)
    return path


def scores(report) -> dict[str, float]:
    """Points per grade_id in a Gradescope report."""
    out: dict[str, float] = {}
    for t in report["tests"]:
        gid = t["name"].split(":")[0]
        out[gid] = out.get(gid, 0) + t["score"]
    return out


def fixture_registry():
    """The fixture assignment's exercises as visible checks (given with --tests, they are hidden
    ones)."""
    from course.grading.judging.registry import Registry

    spec = importlib.util.spec_from_file_location("fixture_checks_visible",
                                                  CHECKS / "fixture_checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return Registry({e.grade_id: e for e in module.EXERCISES}, {})
