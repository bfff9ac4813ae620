"""`python -m course assign`: exercises/ generated from solutions/, the single source.

In a solution cell (nbgrader metadata, "solution": true) each `### BEGIN SOLUTION` ... `### END
SOLUTION` block becomes a stub that names its task and raises NotImplementedError; hidden-test
blocks are dropped from every cell; outputs are cleared, the notebook is stamped with its assignment
(so the grader knows which exercises it holds), then executed so the stubs' failures show.
"""
from __future__ import annotations

import copy
import re
from pathlib import Path

import nbformat

from ..judging.registry import shipped
from .submission import nbgrader

SOLUTION = re.compile(r"^([ \t]*)### BEGIN SOLUTION[^\n]*\n.*?^[ \t]*### END SOLUTION[^\n]*(\n|$)",
                      re.M | re.S)
HIDDEN_TESTS = re.compile(r"^[ \t]*### BEGIN HIDDEN TESTS[^\n]*\n.*?^[ \t]*### END HIDDEN "
                          r"TESTS[^\n]*(\n|$)",
                          re.M | re.S)
RAISES = "raises-exception"  # the nbclient/nbval tag for a cell expected to raise
WIDTH = 74  # the columns a code cell shows at 1024 px with JupyterLab's file browser open


def quoted(text: str) -> str:
    """`text` as a Python string literal in double quotes."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def stub(source: str, grade_id: str, task: str, code: bool) -> str:
    """The cell with each solution block replaced by a stub naming its task (its message split after
    the exercise's name when one line would be wider than WIDTH)."""
    def replace(m: re.Match) -> str:
        indent = m.group(1)
        if not code:
            return f"{indent}YOUR ANSWER HERE{m.group(2)}"
        raising = f"{indent}raise NotImplementedError({quoted(f'Exercise {grade_id}: {task}')})"
        if len(raising) > WIDTH:
            raising = (f"{indent}raise NotImplementedError(\n{indent}    "
                       f"{quoted(f'Exercise {grade_id}: ')}\n"
                       f"{indent}    {quoted(task)})")
        return f"{indent}# YOUR CODE HERE\n{raising}{m.group(2)}"

    return SOLUTION.sub(replace, source)


def exercise_notebook(nb: nbformat.NotebookNode, assignment: str,
                      titles: dict[str, str]) -> nbformat.NotebookNode:
    """The student's notebook made from a solution notebook (a new object; `nb` is unchanged)."""
    nb = copy.deepcopy(nb)
    nb.metadata["course"] = {"assignment": assignment}
    for cell in nb.cells:
        cell.source = HIDDEN_TESTS.sub("", cell.source)
        meta = nbgrader(cell)
        if meta.get("solution"):
            gid = str(meta.get("grade_id", ""))
            cell.source = stub(cell.source, gid, titles.get(gid, "write this part"),
                               cell.cell_type == "code")
            top_level = re.search(r"^raise NotImplementedError", cell.source, re.M)
            tags = cell.metadata.setdefault("tags", [])
            if top_level and RAISES not in tags:
                # a stub at the top level raises when run: expected in an exercise
                tags.append(RAISES)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def set_points(nb: nbformat.NotebookNode, points: dict[str, float]) -> bool:
    """Give each check cell its exercise's points (Exercise.points, the one place they live); True
    if any changed."""
    changed = False
    for cell in nb.cells:
        meta = nbgrader(cell)
        gid = str(meta.get("grade_id", "")).removesuffix("_check")
        if meta.get("grade") and gid in points and meta.get("points") != points[gid]:
            meta["points"], changed = points[gid], True
    return changed


def generate(solutions: Path, exercises: Path) -> list[Path]:
    """Write exercises/<name>.ipynb for every solutions/*.ipynb, each check cell's points its
    exercise's; the paths written."""
    known = shipped().exercises
    titles = {gid: e.title for gid, e in known.items()}
    points = {gid: e.points for gid, e in known.items()}
    exercises.mkdir(parents=True, exist_ok=True)
    written = []
    for path in sorted(solutions.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        set_points(nb, points)
        target = exercises / path.name
        nbformat.write(exercise_notebook(nb, path.stem, titles), target)
        written.append(target)
    return written


def tag_raising_cells(path: Path) -> None:
    """Tag every executed cell that raised (it calls a stub) as expected to raise, for nbval."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if any(o.output_type == "error" for o in cell.get("outputs", [])) and RAISES not in tags:
            cell.metadata["tags"] = tags + [RAISES]
    nbformat.write(nb, path)


def assign(solutions: Path, exercises: Path, *, execute: bool = True) -> list[tuple[Path, str]]:
    """generate(), then execute each exercise notebook in place; (path, error or "") for each."""
    from nbclient.exceptions import CellExecutionError

    from ...editions.notebook import execute as run

    points = {gid: e.points for gid, e in shipped().exercises.items()}
    # the solutions' check cells too: nbgrader reads them
    for path in sorted(solutions.glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        if set_points(nb, points):
            nbformat.write(nb, path)
    done = []
    for path in generate(solutions, exercises):
        try:
            if execute:
                run(path, allow_errors=True)
                tag_raising_cells(path)
            done.append((path, ""))
        except (CellExecutionError, TimeoutError, RuntimeError) as e:
            done.append((path, f"{type(e).__name__}: {e}"))
    return done
