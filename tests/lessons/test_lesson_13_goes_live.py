"""Lesson 13 points the student's own loop at the live API by changing the client, and replays
without a key: in each edition, the recording of its own language (the wire differs: the prompt and
replies speak it).

"Live" here is a real loopback server reached through ANTHROPIC_BASE_URL, exactly as the SDK reaches
the real API: the lesson's code cannot tell the difference, which is the point.
"""
import contextlib
import io
import os
from pathlib import Path

import nbformat
import pytest

from course.api import LocalAPI, Server
from course.scenarios import get

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSON = NOTEBOOKS / "13_the_real_api.ipynb"
CELLS = nbformat.read(LESSON, as_version=4).cells
# each edition: its notebook, and the start of what the switch prints live, without a key, and after
# the run
EDITIONS = {"en": (LESSON, "live API, model", "no ANTHROPIC_API_KEY: replaying",
                   "answer: 1974 | 3 calls"),
            "ja": (NOTEBOOKS / "ja" / LESSON.name, "実際の API、モデル",
                   "ANTHROPIC_API_KEY がありません。代わりに", "回答: 1974 | 3 回の呼び出し")}


def run_until_the_switch(lesson: Path = LESSON) -> str:
    """Run the lesson's loop cell, its imports and the cell that picks the client; what that cell
    prints."""
    code = [c for c in nbformat.read(lesson, as_version=4).cells if c.cell_type == "code"]
    switch = next(i for i, c in enumerate(code) if "make_client(live=True)" in c.source
                  and "agent_loop(" in c.source)
    scope: dict = {}
    out = io.StringIO()
    for i, cell in enumerate(code[:switch + 1]):
        with contextlib.redirect_stdout(out if i == switch else io.StringIO()):
            exec(cell.source, scope)
    return out.getvalue()


def test_the_first_code_cell_is_the_students_loop_and_the_switch_calls_it():
    code = [c for c in CELLS if c.cell_type == "code"]
    assert "loop" in code[0].metadata.get("tags", []) and "def agent_loop(" in code[0].source
    assert any("make_client(live=True)" in c.source and "agent_loop(session" in c.source
               for c in code)


@pytest.fixture(params=sorted(EDITIONS))
def edition(request, monkeypatch):
    """The edition's notebook and what it prints; the course speaks its language (the Japanese
    notebook's first cell sets COURSE_LANG, restored here afterwards)."""
    monkeypatch.setenv("COURSE_LANG", request.param)
    return EDITIONS[request.param]


@pytest.fixture
def live_server(monkeypatch, edition):
    """A loopback API answering as the Aurora Run's model; the environment set as a learner going
    live sets it."""
    api = LocalAPI(get("aurora_run").policy)
    with Server(api) as server:
        monkeypatch.setenv("COURSE_LIVE", "1")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-a-secret")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        yield api


def test_with_a_key_and_course_live_the_students_loop_talks_to_the_api_over_http(
    live_server, edition):
    lesson, live, _, answer = edition
    printed = run_until_the_switch(lesson)
    assert printed.splitlines()[0].startswith(live)
    assert answer in printed
    assert [r.path for r in live_server.requests] == ["/v1/messages"] * 3


def test_without_a_key_it_says_so_and_replays_its_edition_s_recording(
    live_server, edition, monkeypatch):
    lesson, _, offline, answer = edition
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    # the other edition's recording would diverge at once (a 400)
    printed = run_until_the_switch(lesson)
    assert printed.startswith(offline)
    assert answer in printed
    assert live_server.requests == []  # nothing went to the "live" side
    assert "ANTHROPIC_API_KEY" not in os.environ
