"""The Japanese edition's code cells (their comments and strings) and outputs hold no English phrase
of four or more words, but the messages that are English on the real API, the SDK or the CLI too
(ENGLISH_UPSTREAM, each with its source) and Python code a cell shows as it is (CODE, each with the
code it is part of). A phrase in neither list fails: no English sentence reaches a Japanese student.
Print the scan with
  python tests/i18n/test_no_english_in_the_japanese_edition.py"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import nbformat
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from english_phrases import english_phrases, words_of_code  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EDITION = sorted((ROOT / "notebooks" / "ja").glob("*.ipynb")) + sorted(
    (ROOT / "exercises" / "ja").glob("*.ipynb"))

API_400 = ("the Messages API's 400 invalid_request_error (course/api/validate.py words it as the "
           "real API does)")
ENGLISH_UPSTREAM = {  # phrase -> where it is English
    "block must have a corresponding": API_400,
    "ids were found without": API_400,
    "blocks immediately after: toolu": API_400,
    "block in the next message": API_400,
    "block in the previous message": API_400,
    "ids must be unique": API_400,
    "block(s) at the beginning of this message": API_400,
    "blocks must begin with a matching number of": API_400,
    "all messages must have non-empty content except for the optional final assistant message": API_400,  # noqa: E501
    "messages: at least one message is required": API_400,
    "prompt is too long:  tokens": API_400,
    "message must start with a thinking block (preceeding the lastmost set of": API_400,
    "We recommend you include thinking blocks from previous turns": API_400,
    "is enabled, a final": API_400,
    "block: the system prompt, the tools or an earlier message changed since this block was "
    "returned; the "
    # the prefix check on a returned thinking block (lesson 10)
    "conversation must stay append-only": API_400,
    "Writing self-spreading malware could cause serious harm": "a refusal's text, as the real "
                                                               "API's model gives it",
    "Claude requested permissions to use mcp": "the Claude Code CLI's answer to a call "
                                               "can_use_tool denies",
}
CART = ("cart.py and test_cart.py as the coding scenarios' tools read them "
        "(course/scenarios/coding.py: Python source)")
# phrase -> the code it is part of: Python that a cell shows as it is, the same in both editions
CODE = {
    "def total(items, coupon": CART, "items: list of (name, unit": CART,
    "nfrom cart import total": CART,
    "def total(price, qty): return price": CART, "import sys from cart import total def test": CART,
    "call response tool call response tool call response":
        "lesson 09: the event kinds the loop's on_event receives (identifiers: call, response, "
        "tool)",
    **dict.fromkeys(["loop: Loop, client, prompt: str, evaluate: Callable",
                     "send each reason back in the same conversation",
                     "rounds in a row without a tool call, as",
                     "when the inner loop returns no answer (its cap, max",
                     "rounds in a row without tool use",
                     "Session(client, list(out",
                     "the conversation as plain JSON, as it crossed the wire"],
                    "lesson 12 prints the library's own source: "
                    "inspect.getsource(course.goal_loop.goal_loop)"),
}


def phrases(path: Path) -> Counter:
    """The English phrases of a notebook's code cells: their comments and strings, and their
    outputs."""
    found: Counter = Counter()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "code":
            continue
        texts = words_of_code(cell.source)
        for out in cell.get("outputs", []):
            texts += [out.get("text", ""), str(out.get("data", {}).get("text/plain", ""))]
        found.update(p for t in texts for p in english_phrases(t))
    return found


@pytest.mark.parametrize("path", EDITION, ids=[str(p.relative_to(ROOT)) for p in EDITION])
def test_no_new_english_phrase_in_the_japanese_edition(path):
    assert sorted(p for p in phrases(path) if p not in ENGLISH_UPSTREAM and p not in CODE) == []


def test_every_listed_phrase_is_still_in_the_edition():
    """A listed phrase the edition no longer holds is taken off the list (the list is what a student
    reads)."""
    found = Counter()
    for path in EDITION:
        found.update(phrases(path))
    assert sorted(p for p in [*ENGLISH_UPSTREAM, *CODE] if p not in found) == []


def test_the_scan_finds_english_where_there_is_some(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'print("結果:", total)  # the loop stops here for good', outputs=[nbformat.v4.new_output(
            "stream", name="stdout",
            text="Aurora Run is a novel by Henrik Dahl\n1 ターン（2 回の呼び出し）\n")])])
    nbformat.write(nb, tmp_path / "x.ipynb")
    assert sorted(phrases(tmp_path / "x.ipynb")) == ["Aurora Run is a novel by Henrik Dahl",
                                                    "the loop stops here for good"]


if __name__ == "__main__":
    total = Counter()
    for path in EDITION:
        total.update(phrases(path))
    code = sum(n for p, n in total.items() if p in CODE)
    upstream = sum(n for p, n in total.items() if p in ENGLISH_UPSTREAM)
    print(f"{sum(total.values())} English phrases ({len(total)} distinct): {upstream} upstream, "
          f"{code} code, {sum(total.values()) - upstream - code} new")
    for phrase, n in total.most_common():
        print(n, "upstream" if phrase in ENGLISH_UPSTREAM else "code" if phrase in CODE else "NEW",
              phrase)
