"""tool_choice: validated like the real API, and obeyed where the handler can (none, disable_parallel_tool_use)."""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL, make_client
from course.messages import text, tool_use, user

SEARCH = {"name": "search", "description": "Search.", "input_schema": {"type": "object", "properties": {}}}
TWO_CALLS = Turn([text("Looking both up."), tool_use("", "search", {"query": "Mara Voss"}),
                  tool_use("", "search", {"query": "Henrik Dahl"})])


def ask(tool_choice, tools=(SEARCH,)) -> anthropic.types.Message:
    client = make_client(LocalAPI(Scripted([], then=TWO_CALLS)), max_retries=0)
    return client.messages.create(model=MODEL, max_tokens=256, messages=[user("When were they born?")],
                                  tools=list(tools), tool_choice=tool_choice)


def test_auto_keeps_parallel_calls():
    reply = ask({"type": "auto"})
    assert [b.type for b in reply.content] == ["text", "tool_use", "tool_use"] and reply.stop_reason == "tool_use"


def test_disable_parallel_tool_use_keeps_the_first_call():
    reply = ask({"type": "auto", "disable_parallel_tool_use": True})
    assert [b.input for b in reply.content if b.type == "tool_use"] == [{"query": "Mara Voss"}]
    assert reply.stop_reason == "tool_use"


def test_none_removes_the_calls_and_ends_the_turn():
    reply = ask({"type": "none"})
    assert [b.type for b in reply.content] == ["text"] and reply.stop_reason == "end_turn"


@pytest.mark.parametrize("choice, wording", [
    ({"type": "sometimes"}, "tool_choice: Input tag found using 'type' does not match any of the expected tags"),
    ({"type": "tool"}, "tool_choice.tool.name: Field required"),
    ({"type": "none", "disable_parallel_tool_use": True},
     "tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted"),
])
def test_malformed_tool_choice_is_a_400(choice, wording):
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(choice)
    assert info.value.body["error"]["message"].startswith(wording)


def test_tool_choice_without_tools_is_a_400():
    with pytest.raises(anthropic.BadRequestError, match="tool_choice may only be specified while providing tools"):
        ask({"type": "any"}, tools=())
