"""Every lesson teaches in short pieces: no wall of text, a moment to predict or change and re-run,
short outputs."""
import re
from pathlib import Path

import nbformat
import pytest

LESSONS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_WORDS, MAX_LINES = 250, 40
ASKS = re.compile(r"\bpredict\b|\bchange (this|it|the)\b.*\bre-?run\b", re.IGNORECASE | re.DOTALL)


def words(cell) -> int:
    # a diff or code block is not prose
    return len(re.sub(r"```.*?```", "", cell.source, flags=re.DOTALL).split())


def output_lines(cell) -> int:
    texts = [o.get("text", "") if o.output_type == "stream"
             else o.get("data", {}).get("text/plain", "")
             for o in cell.get("outputs", [])]
    return sum(len("".join(t).splitlines()) for t in texts)


def walls(nb, limit: int = MAX_WORDS) -> list[int]:
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and words(c) > limit]


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem[:2])
def test_no_markdown_cell_is_a_wall_of_text(path):
    assert walls(nbformat.read(path, as_version=4)) == []


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem[:2])
def test_every_lesson_asks_to_predict_or_to_change_and_re_run(path):
    nb = nbformat.read(path, as_version=4)
    assert any(ASKS.search(c.source) for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem[:2])
def test_no_cell_prints_more_than_40_lines(path):
    nb = nbformat.read(path, as_version=4)
    assert [i for i,
            c in enumerate(nb.cells) if c.cell_type == "code" and output_lines(c) > MAX_LINES] == []


def test_the_limits_catch_what_they_should():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("word " * 251),
                                         nbformat.v4.new_markdown_cell(
                                             "short\n```diff\n" + "x " * 300 + "\n```")])
    assert walls(nb) == [0]
    assert ASKS.search("Change this to 2 and re-run the cell.") and not ASKS.search("We run it.")
    cell = nbformat.v4.new_code_cell(outputs=[nbformat.v4.new_output("stream", text="a\n" * 41)])
    assert output_lines(cell) == 41
