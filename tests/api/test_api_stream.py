"""SSE streaming: the event sequence of the real API, read by the SDK's own stream helpers."""
from __future__ import annotations

import json

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL, make_client
from course.messages import text, tool_use, user

ANSWER = "The film was directed by Mara Voss; the 1951 is the novelist. Searching for her."
TURN = Turn([text(ANSWER), tool_use("", "search", {"query": "Mara Voss", "limit": 3})])
SEARCH = {"name": "search", "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}
REQUEST = {"model": MODEL, "max_tokens": 1024, "messages": [user("Who directed Aurora Run?")], "tools": [SEARCH]}


def client_for(turn: Turn = TURN) -> anthropic.Anthropic:
    return make_client(LocalAPI(Scripted([], then=turn)))


def test_text_stream_and_final_message_match_the_plain_reply():
    client = client_for()
    with client.messages.stream(**REQUEST) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    plain = client.messages.create(**REQUEST)
    assert len(pieces) > 1 and "".join(pieces) == ANSWER
    assert final.model_dump(exclude={"id"}) == plain.model_dump(exclude={"id"})


def test_tool_use_input_arrives_as_json_deltas():
    with client_for().messages.stream(**REQUEST) as stream:
        events = list(stream)
        final = stream.get_final_message()
    partial = "".join(e.delta.partial_json for e in events
                      if e.type == "content_block_delta" and e.delta.type == "input_json_delta")
    assert json.loads(partial) == final.content[1].input == {"query": "Mara Voss", "limit": 3}
    assert final.stop_reason == "tool_use"


def test_event_sequence_is_the_real_apis():
    events = [e.type for e in client_for(Turn([text("1974")])).messages.create(**REQUEST, stream=True)]
    assert events == ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                      "message_delta", "message_stop"]  # the SDK drops the ping after message_start


def test_stream_cut_at_max_tokens():
    with client_for().messages.stream(**{**REQUEST, "max_tokens": 30}) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "max_tokens" and final.content[1].input == {}


def test_stream_carries_refusal_details():
    turn = Turn([], stop_reason="refusal", stop_details={"type": "refusal", "category": "bio"})
    with client_for(turn).messages.stream(**REQUEST) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "refusal" and final.stop_details.category == "bio"


def test_stream_usage_matches_the_plain_reply():
    client = client_for()
    with client.messages.stream(**REQUEST) as stream:
        usage = stream.get_final_message().usage
    assert usage.output_tokens == client.messages.create(**REQUEST).usage.output_tokens > 1


def test_invalid_streamed_request_is_a_plain_400():
    with pytest.raises(anthropic.BadRequestError, match="first message must use the"):
        with client_for().messages.stream(model=MODEL, max_tokens=64, messages=[{"role": "assistant", "content": "Hi"}]):
            pass
