"""Stop reasons the local API produces, as the real API would: the policy's turn is cut by
max_tokens, a stop sequence or the context window; pause_turn and refusal come from the policy."""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn, tokens
from course.client import MODEL, make_client
from course.messages import text, tool_use, user

SEARCH = {"name": "search",
          "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}

LONG = "The director of the film was born in 1974, not in 1951. " * 10  # 560 characters, 140 tokens


def answer(turn: Turn, *, max_tokens: int = 1024, context_window: int = 200_000,
           **request) -> anthropic.types.Message:
    api = LocalAPI(Scripted([turn]), context_window=context_window)
    return make_client(api).messages.create(model=MODEL, max_tokens=max_tokens,
                                            messages=[user("Tell me.")],
                                           tools=[SEARCH], **request)


def test_a_turn_that_fits_ends_as_the_policy_says():
    reply = answer(Turn([text(LONG)]))
    assert (reply.stop_reason, reply.content[0].text) == ("end_turn", LONG)


def test_text_longer_than_max_tokens_is_cut():
    reply = answer(Turn([text(LONG)]), max_tokens=20)
    assert reply.stop_reason == "max_tokens"
    assert LONG.startswith(reply.content[0].text) and reply.content[0].text != LONG
    assert reply.usage.output_tokens == 20


def test_tool_use_cut_midway_has_no_input_and_stops_at_max_tokens():
    turn = Turn([text("Let me look."), tool_use("", "search", {"query": LONG})])
    reply = answer(turn, max_tokens=30)
    assert reply.stop_reason == "max_tokens"
    assert [b.type for b in reply.content] == ["text", "tool_use"]
    assert reply.content[1].input == {}  # its input JSON never closed
    assert reply.usage.output_tokens == 30  # generation ran to the limit


def test_tool_use_that_fits_stops_with_tool_use():
    reply = answer(Turn([text("Let me look."), tool_use("", "search", {"query": "Mara Voss"})]))
    assert reply.stop_reason == "tool_use" and reply.content[1].input == {"query": "Mara Voss"}
    assert reply.content[1].id.startswith("toolu_")  # the API assigns ids


def test_stop_sequence_cuts_before_it_and_is_reported():
    reply = answer(Turn([text("Answer: 1974\nReasoning: the novelist was born in 1951.")]),
                   stop_sequences=["\nReasoning:"])
    assert (reply.stop_reason, reply.stop_sequence) == ("stop_sequence", "\nReasoning:")
    assert reply.content[0].text == "Answer: 1974"


def test_earliest_stop_sequence_wins():
    reply = answer(Turn([text("a STOP b HALT c")]), stop_sequences=["HALT", "STOP"])
    assert (reply.stop_sequence, reply.content[0].text) == ("STOP", "a ")


def test_absent_stop_sequence_changes_nothing():
    reply = answer(Turn([text(LONG)]), stop_sequences=["never said"])
    assert (reply.stop_reason, reply.stop_sequence) == ("end_turn", None)


def test_pause_turn_from_the_policy():
    reply = answer(Turn([text("Still searching...")], stop_reason="pause_turn"))
    assert reply.stop_reason == "pause_turn"


def test_refusal_carries_stop_details():
    details = {"type": "refusal", "category": "cyber", "explanation": "This could enable malware."}
    reply = answer(Turn([], stop_reason="refusal", stop_details=details))
    assert reply.stop_reason == "refusal"
    assert reply.stop_details.category == "cyber" and reply.stop_details.type == "refusal"


def test_a_policy_cannot_choose_max_tokens():
    with pytest.raises(anthropic.InternalServerError,
                       match="policy failed: ValueError: a policy cannot choose "
                                                            "stop_reason 'max_tokens'"):
        answer(Turn([text("hi")], stop_reason="max_tokens"))


def test_generation_reaching_the_context_window():
    body_tokens = tokens.input_tokens({"messages": [user("Tell me.")], "tools": [SEARCH]})
    window = body_tokens + 10  # room for 10 output tokens, though max_tokens allows more
    reply = answer(Turn([text(LONG)]), max_tokens=1000, context_window=window)
    assert reply.stop_reason == "model_context_window_exceeded"
    assert reply.usage.input_tokens + reply.usage.output_tokens == window


def test_prompt_alone_above_the_window_is_400():
    with pytest.raises(anthropic.BadRequestError) as info:
        answer(Turn([text("hi")]), context_window=10)
    n = tokens.input_tokens({"messages": [user("Tell me.")], "tools": [SEARCH]})
    assert info.value.body["error"]["message"] == f"prompt is too long: {n} tokens > 10 maximum"
