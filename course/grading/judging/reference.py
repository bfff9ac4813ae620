"""The reference solutions, read from solutions/ (the single source): the oracle the checks compare
with.

A solution notebook's code cells, all but its check cells, run once per process in a namespace of
their own; the reference of an exercise is the function its solution cell defines. The mutation test
asks for the same cells to run them with one solution cell changed.
"""
from __future__ import annotations

import contextlib
import functools
import io
import os
from pathlib import Path

import nbformat

import course

# beside the package in a source tree; where the package is installed (the Gradescope bundle),
# COURSE_SOLUTIONS
SOLUTIONS = Path(os.environ.get("COURSE_SOLUTIONS")
                 or Path(course.__file__).resolve().parent.parent / "solutions")


def cells(notebook: str | Path) -> list[nbformat.NotebookNode]:
    """The code cells of a solution notebook (solutions/NN_slug.ipynb) that the grader runs: all but
    the checks."""
    path = SOLUTIONS / Path(notebook).name
    nb = nbformat.read(path, as_version=4)
    return [c for c in nb.cells if c.cell_type == "code"
            and not c.metadata.get("nbgrader", {}).get("grade")]


def run_cells(sources: list[str], name: str) -> dict:
    """A namespace made by running `sources` in order, quietly (what the cells print is not the
    reference's)."""
    namespace: dict = {"__name__": f"reference_{Path(name).stem}"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for source in sources:
            exec(compile(source, f"<{Path(name).name}>", "exec"), namespace)
    return namespace


@functools.cache
def namespace(notebook: str) -> dict:
    """The namespace of one solution notebook, run once per process."""
    return run_cells([c.source for c in cells(notebook)], notebook)


def function(notebook: str, name: str):
    """The reference function `name` of a solution notebook (solutions/NN_slug.ipynb)."""
    return namespace(notebook)[name]
