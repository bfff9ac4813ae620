"""A submission: which notebooks a batch grades, which assignment each is, and the code defining each graded function.

Read as plain JSON (not validated by nbformat), so a damaged notebook still gives what it can, and
an unreadable one gives a reason. A solution cell carries nbgrader metadata with its grade_id;
instructor check cells ({"grade": true, "solution": false, "locked": true}) are never run by the grader.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..i18n import LANGUAGES, tr
from .exercise import Exercise
from .registry import Registry

MAX_BYTES = 32 << 20  # a bigger notebook is refused (outputs full of images, or an attack)


@dataclass
class Submission:
    path: Path
    cells: list[dict] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    problem: str = ""  # why the notebook could not be read; empty when it could


def collect(paths: list[Path]) -> dict[str, Path]:
    """Report name -> notebook: a notebook given by path is named by its stem; a class folder's
    `<student>/<notebook>.ipynb` and nbgrader's `<student>/<assignment>/<notebook>.ipynb` as `<student>/<stem>`."""
    found: dict[str, list[Path]] = {}
    for path in paths:
        if path.is_dir():
            for student in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
                for notebook in sorted([*student.glob("*.ipynb"), *student.glob("*/*.ipynb")]):
                    if ".ipynb_checkpoints" not in notebook.parts:
                        found.setdefault(f"{student.name}/{notebook.stem}", []).append(notebook)
        else:
            found.setdefault(path.stem, []).append(path)
    twice = {name: [str(p) for p in notebooks] for name, notebooks in found.items() if len(notebooks) > 1}
    if twice:
        raise ValueError(f"two submissions would share a report: {twice}")
    return {name: notebooks[0] for name, notebooks in found.items()}


def source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else str(s)


def nbgrader(cell: dict) -> dict:
    meta = cell.get("metadata")
    grader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return grader if isinstance(grader, dict) else {}


def read(path: Path) -> Submission:
    try:
        if path.stat().st_size > MAX_BYTES:
            return Submission(path, problem=tr("the notebook is larger than {megabytes} MB").format(
                megabytes=MAX_BYTES >> 20))
        nb = json.loads(path.read_bytes())
    except OSError as e:
        return Submission(path, problem=tr("the notebook could not be opened ({error})").format(error=e.strerror or e))
    except ValueError as e:
        return Submission(path, problem=tr("the notebook is not valid JSON ({error}); was it edited outside Jupyter?")
                          .format(error=e))
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return Submission(path, problem=tr("the file is not a Jupyter notebook (no list of cells)"))
    cells = [c for c in nb["cells"] if isinstance(c, dict)]
    return Submission(path, cells, nb.get("metadata") if isinstance(nb.get("metadata"), dict) else {})


def language(sub: Submission) -> str:
    """The language of the submission's feedback: its metadata's course.lang ("ja" or "en"), anything else English."""
    ours = sub.metadata.get("course")
    lang = ours.get("lang") if isinstance(ours, dict) else None
    return lang if lang in LANGUAGES else "en"


def solution_ids(sub: Submission) -> list[str]:
    return [str(nbgrader(c)["grade_id"]) for c in sub.cells
            if nbgrader(c).get("solution") and nbgrader(c).get("grade_id")]


def program(sub: Submission, exercise: Exercise) -> tuple[list[str] | None, str]:
    """(the code cells up to and including the exercise's solution cell, ""), or (None, why not)."""
    if sub.problem:
        return None, sub.problem
    where = [i for i, c in enumerate(sub.cells) if nbgrader(c).get("grade_id") == exercise.grade_id
             and nbgrader(c).get("solution") and c.get("cell_type") == "code"]
    if not where:
        return None, tr("the notebook has no solution cell with grade_id '{grade_id}' (deleted, or its metadata "
                        "changed?), so {function}() was not graded").format(grade_id=exercise.grade_id,
                                                                          function=exercise.function)
    cells = sub.cells[: where[-1] + 1]  # a duplicated cell: the last copy wins, as when run top to bottom
    return [source(c) for c in cells if c.get("cell_type") == "code" and not nbgrader(c).get("grade")], ""


def assignment(sub: Submission, registry: Registry) -> list[Exercise]:
    """The exercises this submission answers: named in its metadata, else the group its grade_ids
    belong to, else the group named in its file name, else every exercise."""
    groups = registry.assignments()
    ours = sub.metadata.get("course")
    named = ours.get("assignment") if isinstance(ours, dict) else None
    if named in groups:
        return groups[named]
    present = set(solution_ids(sub))
    overlap = {g: len(present & {e.grade_id for e in ex}) for g, ex in groups.items()}
    best = max(overlap, key=overlap.get, default=None)
    if best is not None and overlap[best]:
        return groups[best]
    for name, ex in groups.items():
        if name in sub.path.stem:
            return ex
    return list(registry.exercises.values())
