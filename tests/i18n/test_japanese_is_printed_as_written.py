"""Japanese is printed as characters, never as JSON's \\u escapes: in the Japanese edition's outputs
and in the replay's divergence message (the message lessons 02 and 13 ask the student to read)."""
from __future__ import annotations

import re

import anthropic
import nbformat
import pytest

from course.api.policy import Replay
from course.client import make_client
from course.editions.translation import ROOT, edition_path, sources
from course.messages import user
from course.scenarios.record import TRANSCRIPTS

# a character beyond ASCII, escaped
ESCAPED = re.compile(r"\\u(?!00[0-7][0-9a-f])[0-9a-f]{4}", re.I)
EDITIONS = [edition_path(p) for p in sources()]


def outputs(cell) -> str:
    return "\n".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
                     for o in cell.get("outputs", []))


@pytest.mark.parametrize("edition", EDITIONS, ids=[str(p.relative_to(ROOT)) for p in EDITIONS])
def test_the_japanese_edition_prints_japanese_not_escapes(edition):
    cells = nbformat.read(edition, as_version=4).cells
    escaped = [(c.id, ESCAPED.search(outputs(c))[0]) for c in cells if ESCAPED.search(outputs(c))]
    assert escaped == []


def test_a_replay_divergence_shows_the_japanese_it_compares(speak):
    speak("ja")
    replay = Replay.load(TRANSCRIPTS / "ja/aurora_run.jsonl")
    with pytest.raises(anthropic.BadRequestError) as info:
        make_client(replay, max_retries=0).messages.create(
            model="claude-haiku-5-5", max_tokens=100,
            messages=[user("Aurora Run を監督したのは誰ですか？")])
    message = info.value.body["error"]["message"]
    assert "Aurora Run を監督したのは誰ですか？" in message and not ESCAPED.search(message)
