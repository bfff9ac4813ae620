"""Lesson 01's system messages: not a turn, placed after the latest user message. P1-P3 pass over
them, in `violations()` as in the local API, and a break is still reported at its index in the whole
list."""
import pytest

from course.api import Scripted, Turn
from course.client import MODEL, make_client
from course.messages import assistant, text, tool_result, tool_use, user, violations

UPDATE = {"role": "system", "content": "Answer in one word."}
ASK = assistant(tool_use("toolu_01", "search", {"query": "Aurora Run"}))
SEARCH = [{"name": "search", "description": "Search.", "input_schema": {"type": "object"}}]
PLACED = {"after the question": [user("Is the sky blue?"), UPDATE],
          "after a tool-result message": [user("Who directed it?"), ASK,
                                          user(tool_result("toolu_01", "a page")), UPDATE]}


@pytest.mark.parametrize("name", PLACED)
def test_a_system_message_after_the_latest_user_message_keeps_p1_to_p3_and_is_accepted(name):
    assert violations(PLACED[name]) == []
    client = make_client(Scripted([], then=Turn([text("Yes.")])))
    reply = client.messages.create(model=MODEL, max_tokens=64, messages=PLACED[name], tools=SEARCH)
    assert reply.stop_reason == "end_turn"


def test_a_break_is_reported_at_its_index_in_the_whole_list():
    found = violations([user("Who directed it?"), UPDATE, ASK])
    assert [(v.rule, v.index) for v in found] == [("P1", 2), ("P2", 2)]
