"""Code cells fit the width JupyterLab shows (issue 30 item 2).

At 1024 px with the file browser open a code cell shows 74 columns: a longer line is cut off, and
the student scrolls sideways to read it. Every line of every code cell, in every edition of the
lessons, exercises and solutions, is at most WIDTH columns wide, where a Japanese character (kana,
kanji, full-width punctuation) takes two columns, as the browser's monospace font draws it.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from test_loop_cells import columns

ROOT = Path(__file__).resolve().parents[2]
WIDTH = 74  # the columns of a code cell at 1024 px with the file browser open
FOLDERS = ("notebooks", "solutions", "exercises")
EDITIONS = [p for folder in FOLDERS for where in (folder, f"{folder}/ja")
            for p in sorted((ROOT / where).glob("*.ipynb"))]


def too_wide(nb) -> list[str]:
    """Each code line wider than WIDTH columns, as "cell <id> line <n> (<columns>): <line>"."""
    found = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        found += [f"cell {cell.id} line {n} ({columns(line)}): {line}"
                  for n, line in enumerate(cell.source.splitlines(), 1) if columns(line) > WIDTH]
    return found


@pytest.mark.parametrize("path", EDITIONS, ids=[str(p.relative_to(ROOT)) for p in EDITIONS])
def test_every_code_line_fits_a_code_cell_at_1024_px(path):
    assert too_wide(nbformat.read(path, as_version=4)) == []


def test_a_line_one_column_too_wide_is_found_in_any_code_cell():
    fits = "x = " + "1" * (WIDTH - 4)
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell(f"{fits}\n{fits}1", id="wide"),
        nbformat.v4.new_code_cell(f"def agent_loop(client):\n{fits}", id="loop"),
        nbformat.v4.new_markdown_cell(fits * 2, id="prose"),
    ])
    assert too_wide(nb) == [f"cell wide line 2 ({WIDTH + 1}): {fits}1"]
    nb.cells[1].source += "1"  # the loop's cells too
    assert too_wide(nb)[1:] == [f"cell loop line 2 ({WIDTH + 1}): {fits}1"]


def test_a_japanese_line_of_74_characters_is_too_wide():
    """A kana, a kanji and a full-width sign take two columns each: 74 characters, three of them
    Japanese, take 77."""
    fits = "# " + "x" * (WIDTH - 8) + "漢か："  # 71 characters, 74 columns
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(f"{fits}\n{fits}xxx", id="ja")])
    assert len(f"{fits}xxx") == WIDTH
    assert too_wide(nb) == [f"cell ja line 2 ({WIDTH + 3}): {fits}xxx"]


def test_there_is_something_to_check():
    assert len(EDITIONS) >= 15 * 2 + 14 * 4
