"""Lessons cite the four source texts as lesson 00 introduces them, and lesson 12 tells measured
from demonstrated."""
import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
# every lesson after 00
CITING = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "12", "13"]
# (which introduces the texts) follows the form (docs/SYLLABUS.md)
BARE = [r"\bseed 00\d", r"\bthe blog\b", r"(?<!Model )(?<!Model's )\bExercise 10\.\d",
        r"(?<!Model's )\bExample \d\.\d", r"\b00[0-3]_", r"\bformal model of the loop\b"]


def markdown(stem: str, folder: Path = NOTEBOOKS) -> str:
    (path,) = folder.glob(f"{stem}_*.ipynb")
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells
                     if c.cell_type == "markdown")


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
    text = ("seed 003, the blog, Exercise 10.2, Example 4.3 but the Blog, Model Exercise 10.2, the "
            "Model's Example 4.3")
    assert [m.group(0) for p in BARE for m in re.finditer(p, text)] == [
        "seed 003",
        "the blog",
        "Exercise 10.2",
        "Example 4.3",
    ]


def test_lesson_12_says_what_the_blog_measured_and_runs_its_toy_once():
    (path,) = NOTEBOOKS.glob("12_*.ipynb")
    cells = nbformat.read(path, as_version=4).cells
    code = "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "range(3)" not in code  # a deterministic toy repeated three times measures nothing
    for cell in (c for c in cells if c.cell_type == "markdown"
                 and re.search(r"\b[03]/3\b", c.source)):
        assert "Blog" in cell.source and "measured" in cell.source.lower(), cell.source[:80]
    text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
    assert all(figure in text for figure in ("21,235", "24,006", "5 to 7", "demonstrat"))


# Every numbered item of the Model (000_*.txt), by kind: a lesson may cite these and nothing else.
MODEL_ITEMS = {
    "def": {"2.1", "2.2", "2.3", "2.4", "3.1", "3.3", "5.1", "6.1", "7.1"},
    "remark": {"3.2", "4.2"},
    "prop": {"3.4", "3.5", "5.2", "5.4", "6.2", "7.2"},
    "thm": {"4.1"},
    "example": {"4.3", "5.3", "6.3"},
    "exercise": {"10.1", "10.2", "10.3", "10.4"},
}
KINDS = {"Def.": "def", "Definition": "def", "定義": "def", "Remark": "remark", "注意": "remark",
         "Prop.": "prop",
         "Proposition": "prop", "命題": "prop", "Thm.": "thm", "Theorem": "thm", "定理": "thm",
         "Example": "example", "例": "example", "Exercise": "exercise", "演習": "exercise"}
CITATION = re.compile(
    r"(?<![A-Za-z.])(" + "|".join(re.escape(k) for k in KINDS) + r")\s*(\d+\.\d+)(?![\d.]*\d)")
ROOT = NOTEBOOKS.parent


def phantom_citations(text: str) -> list[str]:
    """The citations of Model items that the Model does not have ("Prop. 6.3": it is Example
    6.3)."""
    return [m.group(0) for m in CITATION.finditer(text)
            if m.group(2) not in MODEL_ITEMS[KINDS[m.group(1)]]]


def every_cell(path: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)


CITED = sorted([*NOTEBOOKS.glob("*.ipynb"), *SOLUTIONS.glob("*.ipynb")])
TRANSLATED = sorted((ROOT / "translations" / "ja").rglob("*.md"))


@pytest.mark.parametrize("path", CITED + TRANSLATED + [ROOT / "docs" / "SYLLABUS.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_no_lesson_cites_an_item_the_texts_lack(path):
    text = every_cell(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")
    assert phantom_citations(text) == [], (f"{path.relative_to(ROOT)} cites what the Model does "
                                           "not have")


def test_the_citation_pattern_catches_a_phantom_and_passes_the_real_items():
    assert phantom_citations("else:  # Prop. 6.3: two edits may not commute") == ["Prop. 6.3"]
    assert phantom_citations("命題 6.3 と 例 9.1") == ["命題 6.3", "例 9.1"]
    real = ("Def. 3.1, Prop. 5.4 (3), Thm. 4.1, Remark 3.2, the Model's Example 6.3, Model "
            "Exercise 10.4, 定理 4.1")
    assert phantom_citations(real) == []
