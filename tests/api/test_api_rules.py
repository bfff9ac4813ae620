"""The real API's request rules that the local API once got wrong, through the genuine SDK on both
mounts: unknown fields, Anthropic-defined tools, every content block type of the SDK, the content
rules, and what the SDK's types and the documented rules forbid (thinking budgets, media types,
metadata, unknown keys)."""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL
from course.messages import assistant, text, user


def client_for(mount):
    return mount(LocalAPI(Scripted([], then=Turn([text("1974")]))), max_retries=0)


def send(client, **request):
    return client.messages.create(**{"model": MODEL, "max_tokens": 64, "messages": [user("When?")],
                                     **request})


def error_of(client, **request) -> str:
    with pytest.raises(anthropic.BadRequestError) as info:
        send(client, **request)
    return info.value.body["error"]["message"]


@pytest.mark.parametrize("field", ["temperature", "foo"])
def test_an_unknown_field_is_not_permitted(mount, field):
    client = client_for(mount)
    assert error_of(client, extra_body={field: 0.5}) == f"{field}: Extra inputs are not permitted"
    with pytest.raises(anthropic.BadRequestError, match=f"{field}: Extra inputs are not permitted"):
        client.messages.count_tokens(model=MODEL, messages=[user("When?")], extra_body={field: 0.5})


@pytest.mark.parametrize("tool", [{"type": "bash_20250124", "name": "bash"},
                                  {"type": "text_editor_20250728",
                                   "name": "str_replace_based_edit_tool"},
                                  {"type": "web_search_20250305", "name": "web_search",
                                   "max_uses": 3}])
def test_anthropic_defined_tools_need_no_input_schema(mount, tool):
    assert send(client_for(mount), tools=[tool]).content[0].text == "1974"


def test_an_unknown_tool_type_is_a_400(mount):
    assert error_of(client_for(mount), tools=[{"type": "bash_1999", "name": "bash"}]).startswith(
        "tools.0: Input tag 'bash_1999' found using 'type' does not match any of the expected "
        "tags: 'custom', 'bash_20241022', 'bash_20250124'")


def test_an_unknown_block_type_is_a_400_naming_the_sdks_block_types(mount):
    message = error_of(client_for(mount), messages=[user({"type": "gadget"})])
    assert message.startswith("messages.0.content.0: Input tag 'gadget' found using 'type' does "
                              "not match any of the expected tags: 'text', 'image', 'document', "
                              "'search_result'")
    assert "'thinking'" in message and "'tool_result'" in message


def test_a_search_result_block_is_accepted(mount):
    block = {"type": "search_result", "source": "https://example.org/aurora", "title": "Aurora Run",
             "content": [{"type": "text", "text": "Mara Voss (born 1974) directed it."}]}
    assert (
        send(client_for(mount), messages=[user(block, "When was she born?")]).content[0].text
        == "1974"
    )


@pytest.mark.parametrize("messages, wording", [
    ([user(" \n ")],
     "messages.0.content.0.text: text content blocks must contain non-whitespace text"),
    ([user("When?"), assistant("The year is ")],
     "messages: final assistant content cannot end with trailing "
                                                 "whitespace"),
    ([user("When?"), {"role": "assistant", "content": []}, user("Well?")],
     "messages.1: all messages must have non-empty content except for the optional final assistant "
     "message"),
])
def test_content_rules_with_the_apis_wording(mount, messages, wording):
    assert error_of(client_for(mount), messages=messages) == wording


@pytest.mark.parametrize("final", [[], ""])
def test_an_empty_final_assistant_message_is_exempt(mount, final):
    reply = send(client_for(mount),
                 messages=[user("When?"), {"role": "assistant", "content": final}])
    assert reply.content[0].text == "1974"


PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJ"
       "ggg==")
ASKED = [user("When?"), assistant({"type": "tool_use", "id": "t1", "name": "search", "input": {}})]
SEARCH = {"name": "search", "input_schema": {"type": "object", "properties": {}}}


def answered(result: dict) -> list:
    return ASKED + [user(result)]


@pytest.mark.parametrize("request_, wording", [
    ({"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 2048}},
     "`max_tokens` must be greater than `thinking.budget_tokens`."),
    ({"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 1023}},
     "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
    ({"messages": [user({"type": "image",
                         "source": {"type": "base64", "media_type": "image/bmp", "data": PNG}})]},
     "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', "
     "'image/png', 'image/gif' or 'image/webp'"),
    ({"metadata": "student-7"}, "metadata: Input should be a valid dictionary"),
    ({"messages": [user({"type": "document", "title": "Aurora Run"})]},
     "messages.0.content.0.document.source: Field required"),
    ({"system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "persistent"}}]},
     "system.0.cache_control.type: Input should be 'ephemeral'"),
    ({"service_tier": "priority"}, "service_tier: Input should be 'auto' or 'standard_only'"),
    ({"messages": answered({"type": "tool_result", "tool_use_id": "t1", "content": "1974",
                            "status": "ok"}),
      "tools": [SEARCH]},
     "messages.2.content.0.tool_result.status: Extra inputs are not permitted"),
])
def test_what_the_sdks_types_and_the_documented_rules_forbid_is_a_400(mount, request_, wording):
    assert error_of(client_for(mount), **request_).startswith(wording)
