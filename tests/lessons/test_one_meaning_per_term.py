"""One word, one meaning (docs/GLOSSARY.md): a "round" is one round of the goal loop, a "lap" one
session of the outer loop, a response that asks for tools a "tool-use turn"; in Japanese ラウンド,
周 and ツール使用ターン."""
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGLISH = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
    (ROOT / "solutions").glob("*.ipynb")
)
CATALOGUES = sorted((ROOT / "translations" / "ja").rglob("*.md"))
ROUND = re.compile(r"\brounds?\b(?! trip)(?!\()", re.I)  # a round trip is no round, round() no word
LAP = re.compile(r"\blaps?\b", re.I)
# the evaluator-optimizer is a goal loop
GOAL_AND_OUTER_LOOPS = ("11_workflows_versus_agents", "12_three_loops")


def words(path: Path, pattern: re.Pattern) -> list[str]:
    text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    text = re.sub(r"the other way round", "", text, flags=re.I)  # an idiom, not a count
    text = re.sub(r"`[a-z]+-\d`", "", text)  # the name of one of the Blog's logs, such as `lap-1`
    return [text[max(0, m.start() - 40):m.end() + 20] for m in pattern.finditer(text)]


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: f"{p.parent.name}/{p.stem[:2]}")
def test_round_and_lap_are_the_goal_and_outer_loops_words_only(path):
    if path.stem in GOAL_AND_OUTER_LOOPS:
        return
    assert words(path, ROUND) == [] and words(path, LAP) == []


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: f"{p.parent.name}/{p.stem[:2]}")
def test_the_japanese_edition_keeps_the_three_words_apart(path):
    # the Blog's title, quoted in lesson 00
    text = path.read_text(encoding="utf-8").replace("「1周」", "")
    if path.stem not in GOAL_AND_OUTER_LOOPS:
        assert "周" not in text.replace("周り", "") and "ラウンド" not in text
    if path.parent.name == "exercises":  # exercise 12 is the goal loop: no outer-loop laps in it
        assert "周" not in text.replace("周り", "")
