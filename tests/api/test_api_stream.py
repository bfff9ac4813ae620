"""SSE streaming: the event sequence of the real API, read by the SDK's own stream helpers."""
from __future__ import annotations

import json
import time

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL, make_client
from course.messages import text, tool_use, user

ANSWER = "The film was directed by Mara Voss; the 1951 is the novelist. Searching for her."
TURN = Turn([text(ANSWER), tool_use("", "search", {"query": "Mara Voss", "limit": 3})])
SEARCH = {"name": "search",
          "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}
REQUEST = {"model": MODEL, "max_tokens": 1024, "messages": [user("Who directed Aurora Run?")],
           "tools": [SEARCH]}


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
    events = [e.type
              for e in client_for(Turn([text("1974")])).messages.create(**REQUEST, stream=True)]
    assert events == ["message_start", "content_block_start", "content_block_delta",
                      "content_block_stop",
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
    with (
        pytest.raises(anthropic.BadRequestError, match="first message must use the"),
        client_for().messages.stream(
            model=MODEL, max_tokens=64, messages=[{"role": "assistant", "content": "Hi"}]
        ),
    ):
        pass


def raw_events(client, **request) -> list[tuple[str, dict]]:
    """(event, data) as they crossed the wire, ping included (the SDK's helpers drop it)."""
    found = []
    with client.messages.with_streaming_response.create(
        **{**REQUEST, **request, "stream": True}
    ) as response:
        assert response.headers["content-type"] == "text/event-stream"
        assert "content-length" not in response.headers  # written as generated, not built first
        kind = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line.removeprefix("event: ")
            elif line.startswith("data: "):
                found.append((kind, json.loads(line.removeprefix("data: "))))
    return found


def test_ping_follows_the_first_content_block_start_on_both_mounts(mount):
    kinds = [k for k, _ in raw_events(mount(LocalAPI(Scripted([], then=TURN))))]
    assert (
        kinds[:3] == ["message_start", "content_block_start", "ping"] and kinds.count("ping") == 1
    )
    assert kinds[-2:] == ["message_delta", "message_stop"]


def test_message_delta_carries_the_cumulative_usage(mount):
    client = mount(LocalAPI(Scripted([], then=TURN)))
    events = dict(raw_events(client))
    plain = client.messages.create(**REQUEST).usage
    assert events["message_delta"]["usage"] == {
        "input_tokens": plain.input_tokens, "output_tokens": plain.output_tokens,
        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    assert (
        events["message_start"]["message"]["usage"]["service_tier"]
        == plain.service_tier
        == "standard"
    )


def test_a_tool_use_cut_by_max_tokens_streams_partial_json(mount):
    events = raw_events(mount(LocalAPI(Scripted([], then=TURN))), max_tokens=32)
    partial = "".join(d["delta"]["partial_json"] for k, d in events
                      if k == "content_block_delta" and d["delta"]["type"] == "input_json_delta")
    full = json.dumps({"query": "Mara Voss", "limit": 3})
    assert partial and full.startswith(partial) and partial != full
    assert dict(events)["message_delta"]["delta"]["stop_reason"] == "max_tokens"


def test_an_empty_reply_still_reports_one_output_token(mount):
    reply = mount(LocalAPI(Scripted([], then=Turn([])))).messages.create(**REQUEST)
    assert (
        reply.content == []
        and reply.usage.output_tokens == 1
        and reply.usage.service_tier == "standard"
    )


def test_a_mid_stream_error_reaches_the_sdks_stream_helpers_after_a_200(mount):
    api = LocalAPI(Scripted([], then=TURN)).inject("stream_error")
    seen = []
    client = mount(api, max_retries=0)
    with (
        pytest.raises(anthropic.APIStatusError) as info,
        client.messages.stream(**REQUEST) as stream,
    ):
        seen.extend(e.type for e in stream)
    assert info.value.status_code == 200 and info.value.body["error"]["type"] == "overloaded_error"
    assert seen[:2] == ["message_start", "content_block_start"] and "message_stop" not in seen


def test_a_request_that_does_not_stream_gets_the_stream_error_as_a_529(mount):
    api = LocalAPI(Scripted([], then=TURN)).inject("stream_error")
    with pytest.raises(anthropic.OverloadedError):
        mount(api, max_retries=0).messages.create(**REQUEST)


def test_events_arrive_as_they_are_generated_with_a_pace(mount):
    pace = 0.05
    client = mount(LocalAPI(Scripted([], then=Turn([text("1974")])), pace=pace))
    arrived = []
    with client.messages.stream(**REQUEST) as stream:
        for _ in stream:
            arrived.append(time.monotonic())
    # 7 events, paced: a body built first would arrive all at once; a lower bound cannot flake under
    # load
    assert arrived[-1] - arrived[0] >= 4 * pace
