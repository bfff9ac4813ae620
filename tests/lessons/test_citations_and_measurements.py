"""Lessons cite the four source texts as lesson 00 introduces them, and lesson 12 tells measured from demonstrated."""
import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
CITING = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13"]  # every lesson after 00
# (which introduces the texts) follows the form (docs/SYLLABUS.md)
BARE = [r"\bseed 00\d", r"\bthe blog\b", r"(?<!Model )(?<!Model's )\bExercise 10\.\d", r"(?<!Model's )\bExample \d\.\d",
        r"\b00[0-3]_", r"\bformal model of the loop\b"]


def markdown(stem: str, folder: Path = NOTEBOOKS) -> str:
    (path,) = folder.glob(f"{stem}_*.ipynb")
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def test_lesson_00_introduces_the_four_texts_by_name():
    text = markdown("00")
    assert all(f"**the {name}**" in text for name in ("Model", "Primer", "Guide", "Blog"))
    assert "How the course cites them" in text and "demonstration" in text


@pytest.mark.parametrize("stem", CITING)
def test_the_lesson_never_cites_the_material_bare(stem):
    text = markdown(stem)
    found = [m.group(0) for pattern in BARE for m in re.finditer(pattern, text)]
    assert found == [], f"lesson {stem}: {found} (see 'The source material' in lesson 00)"


@pytest.mark.parametrize("stem", sorted(p.name[:2] for p in SOLUTIONS.glob("*.ipynb")))
def test_the_exercise_never_cites_the_material_bare(stem):
    text = markdown(stem, SOLUTIONS)
    found = [m.group(0) for pattern in BARE for m in re.finditer(pattern, text)]
    assert found == [], f"solutions/{stem}: {found} (see 'The source material' in lesson 00)"


def test_the_patterns_catch_what_they_should():
    text = "seed 003, the blog, Exercise 10.2, Example 4.3 but the Blog, Model Exercise 10.2, the Model's Example 4.3"
    assert [m.group(0) for p in BARE for m in re.finditer(p, text)] == ["seed 003", "the blog", "Exercise 10.2",
                                                                         "Example 4.3"]


def test_lesson_12_says_what_the_blog_measured_and_runs_its_toy_once():
    (path,) = NOTEBOOKS.glob("12_*.ipynb")
    cells = nbformat.read(path, as_version=4).cells
    code = "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "range(3)" not in code  # a deterministic toy repeated three times measures nothing
    for cell in (c for c in cells if c.cell_type == "markdown" and re.search(r"\b[03]/3\b", c.source)):
        assert "Blog" in cell.source and "measured" in cell.source.lower(), cell.source[:80]
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert all(figure in text for figure in ("21,235", "24,006", "5 to 7", "demonstrat"))
