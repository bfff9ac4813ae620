"""Lesson 13: a streamed tool_use block's input is complete at that block's content_block_stop,
before the message_delta that brings the stop_reason; the SDK's tool runner runs tools there with
run_tools_eagerly, which needs stream=True."""
import json

import pytest

from course.api import Scripted, Turn
from course.client import MODEL, make_client
from course.messages import text, tool_use

SEARCH = [
    {
        "name": "search",
        "description": "Search.",
        "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}},
    }
]
TWO_CALLS = Scripted([Turn([text("Two searches."), tool_use("", "search", {"query": "Mara Voss"}),
                            tool_use("", "search", {"query": "Henrik Dahl"})])])


def test_a_tool_use_input_is_complete_at_its_content_block_stop():
    streamed, complete, order = {}, [], []
    with make_client(TWO_CALLS).messages.stream(
        model=MODEL,
        max_tokens=256,
        tools=SEARCH,
        messages=[{"role": "user", "content": "When were they born?"}],
    ) as s:
        for event in s:
            order.append(event.type)
            if event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                streamed[event.index] = streamed.get(event.index, "") + event.delta.partial_json
            elif event.type == "content_block_stop" and event.index in streamed:
                # parses: nothing more comes for this block
                complete.append(json.loads(streamed[event.index]))
    assert complete == [{"query": "Mara Voss"}, {"query": "Henrik Dahl"}]
    assert order.index("message_delta") > max(i for i,
                                              e in enumerate(order) if e == "content_block_stop")


def test_the_tool_runner_runs_tools_eagerly_only_on_a_stream():
    client = make_client(TWO_CALLS)
    with pytest.raises(ValueError, match="run_tools_eagerly"):
        client.beta.messages.tool_runner(model=MODEL, max_tokens=256, tools=[],
                                         run_tools_eagerly=True,
                                         messages=[{"role": "user",
                                                    "content": "When were they born?"}])
