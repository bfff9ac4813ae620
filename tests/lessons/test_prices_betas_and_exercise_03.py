"""Where a lesson prices, it says Haiku 5.5's prices are third-party quotes; context editing is
called a beta; lesson 03 teaches the four mistakes of exercise 03's colleague without printing that
exercise's graded solution."""
import re
from pathlib import Path

import nbformat
import pytest

from course.lessons import LOOP_TAG

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSONS = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
PRICING = re.compile(r"\bcost_usd\b|\bprices\(|loop_input_cost|cached_cost")


def cells(path: Path):
    return nbformat.read(path, as_version=4).cells


def prose(path: Path) -> str:
    return "\n".join(c.source for c in cells(path) if c.cell_type == "markdown")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem[:2])
def test_a_lesson_that_prices_says_haiku_5_5s_prices_are_third_party_quotes(path):
    prices = any(PRICING.search(c.source) for c in cells(path)
                 if c.cell_type == "code" and LOOP_TAG not in c.metadata.get("tags", []))
    if prices:
        assert re.search(r"Haiku 5\.5.{0,60}third-party quotes", prose(path), re.S), path.name


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem[:2])
def test_context_editing_is_called_a_beta(path):
    for paragraph in prose(path).split("\n\n"):
        if "context editing" in paragraph.lower():
            assert "beta" in paragraph.lower(), paragraph[:120]


LESSON_03 = [NOTEBOOKS / "03_the_first_loop.ipynb", NOTEBOOKS / "ja" / "03_the_first_loop.ipynb"]
COLLEAGUES_MISTAKES = ["Pitfall: taking every other stop for the answer",
                       "Pitfall: answering only some of the tool calls",
                       "Pitfall: letting a tool's exception end the run", "Pitfall: no cap"]


@pytest.mark.parametrize("path", LESSON_03, ids=["en", "ja"])
def test_lesson_03_never_runs_the_exercise_03_check(path):
    assert not [c.id for c in cells(path) if c.cell_type == "code"
                and re.search(r"\bcheck\(", c.source)]


def test_lesson_03_lists_the_four_mistakes_of_the_colleagues_loop():
    headings = {line.lstrip("# ").strip() for line in prose(LESSON_03[0]).splitlines()
                if line.startswith("###")}
    assert [m for m in COLLEAGUES_MISTAKES if m not in headings] == []
