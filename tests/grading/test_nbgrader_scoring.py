"""nbgrader's own scoring of the course's check cells: `determine_grade` from the real nbgrader (its
venv is the grading benchmark's) on check cells executed in a real kernel."""
from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from course.editions.notebook import kernel_env
from course.grading.judging import registry

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
# made by `make test` (bench.grading.tool_env)
NBGRADER = ROOT / "build" / "bench-envs" / "nbgrader" / "bin" / "python"
POINTS = registry.shipped().exercise("agent_loop").points
STUB = (
    'def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):\n'
    '    raise NotImplementedError("Exercise agent_loop: the first loop")\n'
)
SCORE = """import json, logging, sys
import nbformat
from nbgrader.utils import determine_grade
cells = [nbformat.from_dict(c) for c in json.load(sys.stdin)]
print(json.dumps([determine_grade(c, logging.getLogger())[0] for c in cells]))
"""


def solution() -> str:
    nb = nbformat.read(ROOT / "solutions" / "03_the_first_loop.ipynb", as_version=4)
    return next(c.source for c in nb.cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "agent_loop")


def mistake(name: str) -> str:
    source = (ROOT / "course" / "grading" / "judging" / "mistakes" / f"{name}.py").read_text()
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                and n.name == "agent_loop")
    return ast.get_source_segment(source, node) + "\n"


def executed_check_cell(code: str, tmp_path: Path) -> nbformat.NotebookNode:
    """The check cell of a notebook holding `code`, after a real kernel ran it."""
    meta = {"nbgrader": {"schema_version": 3, "grade": True, "solution": False, "locked": True,
                         "grade_id": "agent_loop_check", "points": POINTS}}
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from course.grading import "
                                                                   "check\n" + code),
                                         nbformat.v4.new_code_cell('check("agent_loop", '
                                                                   'agent_loop)', metadata=meta)])
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}) \
        .execute(env=kernel_env())
    return nb.cells[1]


def test_nbgrader_gives_full_marks_to_the_solution_less_to_a_wrong_loop_and_zero_to_the_stub(
    tmp_path):
    assert NBGRADER.exists(), ("nbgrader's venv is missing: `make test` makes it "
                               "(build/bench-envs/nbgrader)")
    cells = [executed_check_cell(code, tmp_path)
             for code in (solution(), mistake("l03_no_cap"), STUB)]
    # the report stays
    assert all("checks passed" in c.outputs[0]["data"]["text/plain"] for c in cells)
    assert float(cells[0].outputs[-1]["data"]["text/plain"]) == POINTS
    scored = subprocess.run([NBGRADER, "-c", SCORE], input=json.dumps(cells), capture_output=True,
                            text=True, check=True)
    full, wrong, stub = json.loads(scored.stdout)
    assert full == POINTS and 0 < wrong < POINTS and stub == 0
