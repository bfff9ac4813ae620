"""Lessons 10-13 run the student's final loop: each starts with a `loop` cell equal to lesson 09's
last one."""
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
# 14 runs the Agent SDK's own loop
LATER = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if 9 < int(p.name[:2]) < 14)


def loop_cells(path: Path) -> list:
    return [c for c in nbformat.read(path, as_version=4).cells
            if "loop" in c.metadata.get("tags", [])]


def final_loop() -> str:
    """The source of lesson 09's last `loop` cell: the loop the student finishes the core lessons
    with."""
    (lesson_09,) = NOTEBOOKS.glob("09_*.ipynb")
    cells = loop_cells(lesson_09)
    assert cells, f"{lesson_09.name} has no cell tagged `loop`"
    return cells[-1].source


def test_the_later_lessons_are_lessons_10_to_13():
    assert [p.name[:2] for p in LATER] == ["10", "11", "12", "13"]


@pytest.mark.parametrize("path", LATER, ids=[p.stem for p in LATER])
def test_the_lesson_starts_with_the_final_loop_of_lesson_09(path):
    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    assert "loop" in code[0].metadata.get("tags", []), (f"{path.name}: the first code cell is not "
                                                        "tagged `loop`")
    assert [c.source for c in loop_cells(path)] == [final_loop()], (f"{path.name}: re-copy lesson "
                                                                    "09's `loop` cell")


@pytest.mark.parametrize("path", LATER, ids=[p.stem for p in LATER])
def test_the_lesson_says_the_loop_is_the_students_own(path):
    cells = nbformat.read(path, as_version=4).cells
    first_loop = next(i for i, c in enumerate(cells) if "loop" in c.metadata.get("tags", []))
    assert "your loop from lesson 09" in cells[first_loop - 1].source.lower()
