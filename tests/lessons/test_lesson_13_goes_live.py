"""Lesson 13 points the student's own loop at the live API by changing the client, and replays without a key.

"Live" here is a real loopback server reached through ANTHROPIC_BASE_URL, exactly as the SDK reaches the real API:
the lesson's code cannot tell the difference, which is the point.
"""
import contextlib
import io
import os
from pathlib import Path

import nbformat
import pytest

from course.api import LocalAPI, Server
from course.scenarios import get

LESSON = Path(__file__).resolve().parents[2] / "notebooks" / "13_the_real_api.ipynb"
CELLS = nbformat.read(LESSON, as_version=4).cells


def run_until_the_switch() -> str:
    """Run the lesson's loop cell, its imports and the cell that picks the client; what that cell prints."""
    code = [c for c in CELLS if c.cell_type == "code"]
    switch = next(i for i, c in enumerate(code) if "make_client(live=True)" in c.source and "agent_loop(" in c.source)
    scope: dict = {}
    out = io.StringIO()
    for i, cell in enumerate(code[:switch + 1]):
        with contextlib.redirect_stdout(out if i == switch else io.StringIO()):
            exec(cell.source, scope)
    return out.getvalue()


def test_the_first_code_cell_is_the_students_loop_and_the_switch_calls_it():
    code = [c for c in CELLS if c.cell_type == "code"]
    assert "loop" in code[0].metadata.get("tags", []) and "def agent_loop(" in code[0].source
    assert any("make_client(live=True)" in c.source and "agent_loop(session" in c.source for c in code)


@pytest.fixture
def live_server(monkeypatch):
    """A loopback API answering as the Aurora Run's model; the environment set as a learner going live sets it."""
    api = LocalAPI(get("aurora_run").policy)
    with Server(api) as server:
        monkeypatch.setenv("COURSE_LIVE", "1")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-a-secret")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        yield api


def test_with_a_key_and_course_live_the_students_loop_talks_to_the_api_over_http(live_server):
    printed = run_until_the_switch()
    assert printed.splitlines()[0].startswith("live API, model")
    assert "answer: 1974 | 3 calls" in printed
    assert [r.path for r in live_server.requests] == ["/v1/messages"] * 3


def test_without_a_key_it_says_so_and_replays_the_recording(live_server, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    printed = run_until_the_switch()
    assert printed.startswith("no ANTHROPIC_API_KEY: replaying")
    assert "answer: 1974 | 3 calls" in printed
    assert live_server.requests == []  # nothing went to the "live" side
    assert "ANTHROPIC_API_KEY" not in os.environ
