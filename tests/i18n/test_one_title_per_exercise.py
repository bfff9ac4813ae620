"""One title per exercise, from one place: Exercise.title, translated by the catalogue. The
exercise's heading (in the exercise and the solution notebooks) and its stub's message say that
title, in English and in Japanese, as the check report and the feedback page do."""
from __future__ import annotations

import ast

import nbformat
import pytest

from course.editions.translation import ROOT
from course.grading.judging.registry import shipped
from course.i18n import speaking, tr

EXERCISES = list(shipped().exercises.values())
EDITIONS = {"en": ("", "Exercise", ": "), "ja": ("ja/", "課題", "：")}  # folder, word, colon


def stub_messages(source: str) -> list[str]:
    """The messages of the cell's `raise NotImplementedError("...")` stubs (a message may span
    lines)."""
    tree = compile(source, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    return [n.exc.args[0].value for n in ast.walk(tree)
            if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)
            and isinstance(n.exc.func, ast.Name)
            and n.exc.func.id == "NotImplementedError" and n.exc.args
            and isinstance(n.exc.args[0], ast.Constant)]


def headings(path, grade_id: str) -> list[str]:
    """The notebook's headings of the exercise, without their code marks."""
    heads = [line for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"
             for line in c.source.splitlines() if line.startswith("#") and f"`{grade_id}`" in line]
    return [h.replace("`", "") for h in heads]


@pytest.mark.parametrize("lang", EDITIONS)
@pytest.mark.parametrize("exercise", EXERCISES, ids=[e.grade_id for e in EXERCISES])
def test_the_heading_and_the_stub_say_the_exercises_title(exercise, lang):
    folder, word, colon = EDITIONS[lang]
    with speaking(lang):
        named = f"{word} {exercise.grade_id}{colon}{tr(exercise.title)}"
    stem = exercise.notebook.split("/")[-1]
    for kind in ("exercises", "solutions"):
        assert headings(ROOT / kind / folder / stem, exercise.grade_id) == [f"## {named}".replace(
            "`", "")]
    cells = nbformat.read(ROOT / "exercises" / folder / stem, as_version=4).cells
    stubs = [m for c in cells if c.cell_type == "code" for m in stub_messages(c.source)
             if exercise.grade_id in m]
    assert stubs == [named]
