"""The Japanese edition's code cells (their comments and strings) and outputs hold no English phrase of four or more
words, but the messages that are English on the real API, the SDK or the CLI too (ENGLISH_UPSTREAM, each with its
source) and, for now, the English the course still owes (OWED: each names the issue 29 item that removes it).
A phrase in neither list fails: nothing new in English reaches a Japanese student. Print the scan with
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
EDITION = sorted((ROOT / "notebooks" / "ja").glob("*.ipynb")) + sorted((ROOT / "exercises" / "ja").glob("*.ipynb"))

API_400 = "the Messages API's 400 invalid_request_error (course/api/validate.py words it as the real API does)"
ENGLISH_UPSTREAM = {  # phrase -> where it is English
    "block must have a corresponding": API_400,
    "ids were found without": API_400,
    "blocks immediately after: toolu": API_400,
    "block in the next message": API_400,
    "block in the previous message": API_400,
    "ids must be unique": API_400,
    "block(s) at the beginning of this message": API_400,
    "blocks must begin with a matching number of": API_400,
    "all messages must have non-empty content except for the optional final assistant message": API_400,
    "messages: at least one message is required": API_400,
    "prompt is too long:  tokens": API_400,
    "message must start with a thinking block (preceeding the la": API_400,
    "is enabled, a final": API_400,
    "block: the system prompt, the tools or an earlier message changed since this block was returned; the "
    "conversation must stay append-only": API_400,  # the prefix check on a returned thinking block (lesson 10)
    "Writing self-spreading malware could cause serious harm": "a refusal's text, as the real API's model gives it",
    "Claude requested permissions to use mcp": "the Claude Code CLI's answer to a call can_use_tool denies",
}
OWED = {  # phrase -> the item of issue 29 that takes it away
    # item 1: the toy tools answer in English (course/scenarios, course/tools, the gate and the hooks)
    "Aurora Run: Henrik Dahl": "1", "ok: Aurora Run: Aurora Run is a  novel by Henrik Dahl (born": "1",
    "Aurora Run: Aurora Run is a  novel by Henrik Dahl (born": "1",
    "Aurora Run: Aurora Run is a  novel b'": "1", "It was adapted into a  film directed by Mara Voss": "1",
    "Mara Voss: Mara Voss (born ) is a Norwegian film director, known for Aurora": "1",
    "Mara Voss: Mara Voss (born ) is a Norwegian film director, known for Aurora Run": "1",
    "Mara Voss: Mara Voss (born ) is a No'": "1",
    "Henrik Dahl: Henrik Dahl (born ) is a Norwegian novelist, the author of Aur": "1",
    "No matching page found": "1", "Blocked by a hook": "1", "Permission denied by rule deny write": "1",
    "Permission denied by rule deny search": "1", "Permission denied: a human refused run": "1",
    "needs approval (rule ask run": "1", "and nobody approved it'": "1", "wrote  characters to a": "1",
    "Error: FileNotFoundError: no such file: todo": "1", "src' is a folder": "1",
    "goes back exactly as it came": "1", "Error: invalid input for word": "1", "Error: invalid input for read": "1",
    "Error: invalid input for write": "1", "text:  is not of type": "1", "text' is a required property": "1",
    "path' is a required property": "1", "Error: RuntimeError: exit code": "1",
    "error: Error: RuntimeError: exit code  FAIL test": "1",
    # item 1: cart.py and its test, the files the coding scenario's tools read and write
    "def total(items, coupon": "1", "items: list of (name, unit": "1", "nfrom cart import total": "1",
    "def total(price, qty): return price": "1", "ok: def total(items, coupon": "1",
    "ok: import sys from cart import total def test": "1",
    # item 5: print labels and tables of lessons 04 and 09
    "success after  calls,  turns; step": "5 (the explorer's text form, course/viz/explorer.py)",
    "after  calls,  turns; step": "5 (the explorer's text form, course/viz/explorer.py)",
    "call response tool call response tool call response": "5 (lesson 09 prints the event kinds of course/events.py)",
    # item 5: lesson 12 prints the source of course/goal_loop.py, English docstring and comments
    "loop: Loop, client, prompt: str, evaluate: Callable": "5", "send each reason back in the same conversation": "5",
    "rounds in a row without a tool call, as": "5", "when the inner loop returns no answer (its cap, max": "5",
    "rounds in a row without tool use": "5", "Session(client, list(out": "5",
    "the conversation as plain JSON, as it crossed the wire": "5",
}


def phrases(path: Path) -> Counter:
    """The English phrases of a notebook's code cells: their comments and strings, and their outputs."""
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
    assert sorted(p for p in phrases(path) if p not in ENGLISH_UPSTREAM and p not in OWED) == []


def test_the_scan_finds_english_where_there_is_some(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        'print("結果:", total)  # the loop stops here for good', outputs=[nbformat.v4.new_output(
            "stream", name="stdout", text="Aurora Run is a novel by Henrik Dahl\n1 ターン（2 回の呼び出し）\n")])])
    nbformat.write(nb, tmp_path / "x.ipynb")
    assert sorted(phrases(tmp_path / "x.ipynb")) == ["Aurora Run is a novel by Henrik Dahl",
                                                    "the loop stops here for good"]


if __name__ == "__main__":
    total = Counter()
    for path in EDITION:
        total.update(phrases(path))
    owed = sum(n for p, n in total.items() if p in OWED)
    upstream = sum(n for p, n in total.items() if p in ENGLISH_UPSTREAM)
    print(f"{sum(total.values())} English phrases ({len(total)} distinct): {upstream} upstream, {owed} owed, "
          f"{sum(total.values()) - upstream - owed} new")
    for phrase, n in total.most_common():
        print(n, "upstream" if phrase in ENGLISH_UPSTREAM else f"item {OWED[phrase]}" if phrase in OWED else "NEW",
              phrase)
