"""Lesson 10 on a thinking model: clearing and compaction before a returned thinking block get the
API's 400, as the lesson says; its remedy, a fresh conversation that carries a summary, runs on the
thinking scenario without one and answers. The lesson's own cells are run (after its loop and
imports), in both editions."""
import contextlib
import io
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSON_10 = [NOTEBOOKS / "10_managing_the_context.ipynb",
             NOTEBOOKS / "ja" / "10_managing_the_context.ipynb"]
# the loop, the imports, the two edits, the remedy
CELLS = ("c02", "c03", "c14-think-code", "c14-fresh-code")


def run_cells(path: Path) -> tuple[dict, dict[str, str]]:
    """The namespace after the lesson's CELLS, and what each printed."""
    sources = {c.id: c.source for c in nbformat.read(path, as_version=4).cells}
    namespace, printed = {}, {}
    for cell in CELLS:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            exec(compile(sources[cell], f"10:{cell}", "exec"), namespace)
        printed[cell] = out.getvalue()
    return namespace, printed


@pytest.mark.parametrize("path", LESSON_10, ids=["en", "ja"])
def test_clearing_and_compaction_get_a_400_on_a_thinking_model_and_a_fresh_conversation_answers(
    path,
):
    namespace, printed = run_cells(path)
    refused = [line.split(":")[0] for line in printed["c14-think-code"].splitlines()]
    assert refused == ["clearing", "compaction"] and printed["c14-think-code"].count(": 400 ") == 2
    # the remedy's session: every reply started with a thinking block, none refused
    fresh = namespace["fresh"]
    assert namespace["answer"] == "1974" and fresh.calls == len(fresh.responses) >= 2
    assert all(r.content[0].type == "thinking" for r in fresh.responses)
