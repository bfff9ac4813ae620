"""Each Japanese loop lesson's loop-diff cell shows what changed between the Japanese loop cells
(their comments and docstrings are Japanese), as the English one does for the English loops
(tests/lessons/test_loop_cells.py)."""
from __future__ import annotations

import pytest

from course.editions.translation import ROOT
from course.lessons import DIFF_TAG, LOOP_LESSONS, LOOP_TAG, loop_diff, tagged_source


def japanese(stem: str):
    return ROOT / "notebooks" / "ja" / f"{stem}.ipynb"


@pytest.mark.parametrize("before, after", list(zip(LOOP_LESSONS, LOOP_LESSONS[1:], strict=False)),
                         ids=LOOP_LESSONS[1:])
def test_the_japanese_loop_diff_compares_the_japanese_loops(before, after):
    old, new = tagged_source(japanese(before), LOOP_TAG), tagged_source(japanese(after), LOOP_TAG)
    assert tagged_source(japanese(after), DIFF_TAG) == loop_diff(old, new, f"レッスン {before[:2]}",
                                                                  f"レッスン {after[:2]}")
