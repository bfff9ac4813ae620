"""Wrong (or differently right) versions of a reference solution, made by editing its solution
cell's source."""
from __future__ import annotations

from pathlib import Path

import nbformat

from course.grading.judging import reference


def variant(notebook: str, name: str, *edits: tuple[str, str]):
    """The reference `name` of solutions/`notebook` with each (old, new) of `edits` replaced in its
    solution cell's source, defined in the notebook's namespace as the reference is."""
    cell = next(
        c for c in nbformat.read(reference.SOLUTIONS / Path(notebook).name, as_version=4).cells
        if c.metadata.get("nbgrader", {}).get("grade_id") == name)
    source = cell.source
    for old, new in edits:
        assert old in source, f"{old!r} is not in {name}'s solution"
        source = source.replace(old, new)
    namespace = dict(reference.namespace(notebook))
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace[name]
