"""Adaptive thinking (5.x): replies that start with a signed thinking block, which a later request
must send back unmodified after an unchanged history; through the genuine SDK on both mounts."""
from __future__ import annotations

import anthropic
import pytest

from course.client import MODEL
from course.messages import as_dict, tool_result, user
from course.scenarios import get
from course.scenarios.search import search

THINKING = get("thinking_run")
TOOLS = THINKING.tools().definitions()


def first_turn(client, model: str = MODEL) -> list[dict]:
    """The history after the first reply and its tool result."""
    reply = client.messages.create(model=model, max_tokens=256, tools=TOOLS,
                                   messages=[user(THINKING.prompt)])
    call = next(b for b in reply.content if b.type == "tool_use")
    return [user(THINKING.prompt), {"role": "assistant", "content": as_dict(reply.content)},
            user(tool_result(call.id, search(call.input["query"])))]


def send(client, messages, **request):
    return client.messages.create(**{"model": MODEL, "max_tokens": 256, "tools": TOOLS,
                                     "messages": messages, **request})


def test_a_5x_reply_starts_with_an_empty_signed_thinking_block(mount):
    client = mount(THINKING.api())
    history = first_turn(client)
    thinking = history[1]["content"][0]
    assert thinking["type"] == "thinking" and thinking["thinking"] == "" and thinking["signature"]
    assert send(client, history).content[0].type == "thinking"  # sent back unmodified: accepted


def test_a_model_without_adaptive_thinking_gets_no_thinking_block(mount):
    client = mount(THINKING.api())
    assert [b["type"] for b in first_turn(client, "claude-haiku-4-5")[1]["content"]] == ["tool_use"]


def test_the_reference_loop_sends_thinking_back_and_finishes():
    result = THINKING.run()
    assert (result.subtype, result.text) == ("success", "1974")
    assert all(m["content"][0]["type"] == "thinking" for m in result.messages[1::2])


def test_dropping_the_thinking_block_is_a_400(mount):
    client = mount(THINKING.api(), max_retries=0)
    history = first_turn(client)
    history[1]["content"] = history[1]["content"][1:]
    with pytest.raises(anthropic.BadRequestError,
                       match=r"messages.1.content.0.type: Expected `thinking` or "
                                                        r"`redacted_thinking`, but found "
                                                        r"`tool_use`"):
        send(client, history)


def test_modifying_the_thinking_block_is_a_400(mount):
    client = mount(THINKING.api(), max_retries=0)
    history = first_turn(client)
    history[1]["content"][0]["thinking"] = "I should search."
    with pytest.raises(anthropic.BadRequestError,
                       match="blocks in the latest assistant message cannot be modified"):
        send(client, history)


@pytest.mark.parametrize("change", ["system", "tools", "earlier message"])
def test_changing_the_history_before_a_thinking_block_is_a_400(mount, change):
    client = mount(THINKING.api(), max_retries=0)
    history = first_turn(client)
    request = {}
    if change == "system":
        request["system"] = "Answer briefly."
    elif change == "tools":
        request["tools"] = [{**TOOLS[0], "description": "Search."}]
    else:
        history[0] = user(THINKING.prompt + " Please.")
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature` in `thinking` block"):
        send(client, history, **request)


def test_a_deferred_tool_declared_later_leaves_the_prefix_and_the_signature_valid(mount):
    # the platform's rule: deferred tools are not in the prefix; tool search appends them to the
    # history instead
    client = mount(THINKING.api())
    history = first_turn(client)
    deferred = {"name": "mcp__course__lookup", "input_schema": {"type": "object", "properties": {}},
                "defer_loading": True}
    assert send(client, history, tools=TOOLS + [deferred]).content[0].type == "thinking"
    # a loaded tool still changes it
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
        send(client, history, tools=TOOLS + [{**deferred, "defer_loading": False}])


@pytest.mark.parametrize("stream", [False, True])
def test_drop_block_removes_a_block_whose_history_changed_and_reports_it(mount, stream):
    client = mount(THINKING.api())
    history = first_turn(client)
    # the first message is not the same
    changed = [user("In which year was she born, again?")] + history[1:]
    # by default: an error
    with pytest.raises(anthropic.BadRequestError, match="Invalid `signature`"):
        send(client, changed)
    options = dict(model=MODEL, max_tokens=256, tools=TOOLS, messages=changed,
                   betas=["context-management-2025-06-27"],
                   thinking={"type": "adaptive",
                             "block_binding": {"prefix_mismatch_behavior": "drop_block"}})
    if stream:
        with client.beta.messages.stream(**options) as s:
            reply = s.get_final_message()
    else:
        reply = client.beta.messages.create(**options)
    assert [(t.type, t.path, t.reason) for t in reply.input_transformations] == [
        ("thinking_dropped", "messages.1.content.0", "prefix_binding_mismatch")]
    assert reply.stop_reason in ("tool_use", "end_turn")


def test_thinking_disabled_gets_no_thinking_block_and_may_leave_out_earlier_ones(mount):
    # a 5.x model thinks unless the request says thinking: {"type": "disabled"}; then the reply
    # starts with the call, and a history whose thinking blocks were left out (a client that
    # switched thinking off) is accepted
    client = mount(THINKING.api())
    off = {"thinking": {"type": "disabled"}}
    reply = send(client, [user(THINKING.prompt)], **off)
    assert [b.type for b in reply.content] == ["tool_use"]
    history = first_turn(client)
    history[1]["content"] = history[1]["content"][1:]  # the thinking block left out
    assert [b.type for b in send(client, history, **off).content] == ["text", "tool_use"]
