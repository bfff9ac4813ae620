"""pause_turn breaks P1 and nothing else: `violations()` reports exactly that on the continuation
request, every other request of the run is clean, and lessons 06 and 09 say Prop. 3.4 covers the
loop without pause_turn."""
import re
from pathlib import Path

import nbformat

from course.messages import violations
from course.scenarios import get

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def test_the_continuation_request_breaks_p1_only_and_the_other_requests_nothing():
    scenario = get("pause_turn")
    api = scenario.api()
    assert scenario.agent(api=api).run(scenario.prompt).subtype == "success"
    found = [violations(r.body["messages"]) for r in api.requests]
    first, continuation = found
    assert first == []
    assert [(v.rule, v.index) for v in continuation] == [
        ("P1", len(api.requests[1].body["messages"]) - 1)
    ]
    assert api.requests[1].body["messages"][-1]["role"] == "assistant"


def prose(stem: str) -> list[str]:
    (path,) = NOTEBOOKS.glob(f"{stem}_*.ipynb")
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


def test_lessons_06_and_09_say_where_pause_turn_leaves_prop_3_4():
    for stem in ("06", "09"):
        cells = prose(stem)
        assert any("pause_turn" in c and "Prop. 3.4" in c and re.search(r"\bP1\b", c)
                   and "without" in c
                   for c in cells), (f"lesson {stem}: say that Prop. 3.4 covers the loop without "
                                     "pause_turn")


def test_lesson_06_prints_what_violations_says():
    (path,) = NOTEBOOKS.glob("06_*.ipynb")
    cell = next(c for c in nbformat.read(path, as_version=4).cells
                if c.cell_type == "code" and "violations(" in c.source)
    printed = "".join(o.get("text", "") for o in cell.outputs)
    assert printed == "P1 at messages[1]: the last message is from 'assistant', not 'user'\n"
