"""The local API rejects what the real API rejects, with the same status, error type and kind of
wording.

Every request goes through the genuine SDK, so each test also checks that the
SDK turns the reply into the right exception class.
"""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL, make_client
from course.messages import assistant, text, tool_result, tool_use, user

SEARCH = {"name": "search", "description": "Search.",
          "input_schema": {"type": "object", "properties": {}}}


@pytest.fixture
def api():
    return LocalAPI(Scripted([], then=Turn([text("ok")])))


def rejected(api, error=anthropic.BadRequestError, **body) -> anthropic.APIStatusError:
    """Send `body` to `api` with the SDK; return the error it raised, after checking the error
    type."""
    client = make_client(api, max_retries=0)
    with pytest.raises(error) as info:
        client.post("/v1/messages", body={"model": MODEL, "max_tokens": 64, **body},
                    cast_to=anthropic.types.Message)
    kinds = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
             413: "request_too_large"}
    assert info.value.body["error"]["type"] == kinds[info.value.status_code]
    return info.value


def message_of(e: anthropic.APIStatusError) -> str:
    return e.body["error"]["message"]


def asked(*ids: str) -> list[dict]:
    """A user question and an assistant turn calling `search` once per id."""
    return [user("Where is it?"), assistant(*(tool_use(i, "search", {}) for i in ids))]


def test_valid_request_is_answered(api):
    client = make_client(api)
    reply = client.messages.create(model=MODEL, max_tokens=64,
                                   messages=asked("a") + [user(tool_result("a", "x"))],
                                   tools=[SEARCH])
    assert reply.content[0].text == "ok" and api.requests[-1].status == 200


def test_tool_use_without_result_right_after(api):
    e = rejected(api, messages=asked("a", "b") + [user("never mind")], tools=[SEARCH])
    assert e.status_code == 400
    assert message_of(e).startswith("messages.1: `tool_use` ids were found without `tool_result` "
                                    "blocks immediately after: a, b.")


def test_tool_use_as_last_message(api):
    e = rejected(api, messages=asked("a"), tools=[SEARCH])
    assert (
        "`tool_use` ids were found without `tool_result` blocks immediately after: a"
        in message_of(e)
    )


def test_result_for_only_one_of_two_calls(api):
    e = rejected(api, messages=asked("a", "b") + [user(tool_result("a", "x"))], tools=[SEARCH])
    assert "without `tool_result` blocks immediately after: b." in message_of(e)


def test_tool_result_not_first_in_user_content(api):
    e = rejected(api, messages=asked("a") + [user("Here you go:", tool_result("a", "x"))],
                 tools=[SEARCH])
    assert message_of(e) == ("messages.2: Did not find 1 `tool_result` block(s) at the beginning "
                             "of this message. Messages following `tool_use` blocks must begin "
                             "with a matching number of `tool_result` blocks.")


def test_text_between_parallel_results(api):
    e = rejected(api, messages=asked("a", "b") + [user(tool_result("a", "x"), "and",
                                                       tool_result("b", "y"))],
                 tools=[SEARCH])
    assert message_of(e).startswith("messages.2: Did not find 1 `tool_result` block(s) at the "
                                    "beginning")


def test_tool_result_with_unknown_id(api):
    e = rejected(api, messages=asked("a") + [user(tool_result("a", "x"), tool_result("zzz", "y"))],
                 tools=[SEARCH])
    assert message_of(e) == ("messages.2.content.1: unexpected `tool_use_id` found in "
                             "`tool_result` blocks: zzz. Each `tool_result` block must have a "
                             "corresponding `tool_use` block in the previous message.")


def test_tool_result_without_any_tool_use(api):
    e = rejected(api, messages=[user(tool_result("a", "x"))])
    assert message_of(e).startswith("messages.0.content.0: unexpected `tool_use_id` found in "
                                    "`tool_result` blocks: a.")


def test_duplicated_tool_result(api):
    e = rejected(api, messages=asked("a") + [user(tool_result("a", "x"), tool_result("a", "y"))],
                 tools=[SEARCH])
    assert message_of(e) == ("messages.2.content.1: each `tool_use` must have a single result. "
                             "Found multiple `tool_result` blocks with id: a")


def test_first_message_not_from_user(api):
    e = rejected(api, messages=[assistant("Hello."), user("Hi")])
    assert message_of(e) == 'messages: first message must use the "user" role'


@pytest.mark.parametrize("content", ["", []])
def test_empty_content(api, content):
    e = rejected(api, messages=[{"role": "user", "content": content}])
    assert message_of(e) == ("messages.0: all messages must have non-empty content except for the "
                             "optional final assistant message")


def test_empty_text_block(api):
    e = rejected(api, messages=[user("")])
    assert message_of(e) == "messages.0.content.0.text: text content blocks must be non-empty"


def test_missing_model(api):
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.post("/v1/messages", body={"max_tokens": 64, "messages": [user("hi")]},
                    cast_to=anthropic.types.Message)
    assert info.value.status_code == 400 and message_of(info.value) == "model: Field required"


def test_missing_max_tokens(api):
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.post("/v1/messages", body={"model": MODEL, "messages": [user("hi")]},
                    cast_to=anthropic.types.Message)
    assert message_of(info.value) == "max_tokens: Field required"


@pytest.mark.parametrize("name", ["web search", "x" * 65, "naïve", ""])
def test_tool_name_the_api_rejects(api, name):
    e = rejected(api, messages=[user("hi")], tools=[{**SEARCH, "name": name}])
    assert message_of(e) == ("tools.0.custom.name: String should match pattern "
                             "'^[a-zA-Z0-9_-]{1,64}$'")


def test_duplicate_tool_names(api):
    e = rejected(api, messages=[user("hi")], tools=[SEARCH, SEARCH])
    assert message_of(e) == "tools: Tool names must be unique."


def test_input_schema_not_an_object(api):
    e = rejected(api, messages=[user("hi")], tools=[{**SEARCH, "input_schema": {"type": "string"}}])
    assert message_of(e) == "tools.0.custom.input_schema.type: Input should be 'object'"


def test_input_schema_not_json_schema(api):
    bad = {"type": "object", "properties": {"q": {"type": "text"}}}  # "text" is no JSON Schema type
    e = rejected(api, messages=[user("hi")], tools=[{**SEARCH, "input_schema": bad}])
    assert message_of(e).startswith("tools.0.custom.input_schema: JSON schema is invalid. It must "
                                    "match JSON Schema draft 2020-12")


def test_more_than_four_cache_breakpoints(api):
    marked = {"type": "text", "text": "a fact", "cache_control": {"type": "ephemeral"}}
    e = rejected(api, messages=[user(*[marked] * 5)])
    assert message_of(e) == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_missing_api_key_is_401(api):
    client = make_client(api, max_retries=0)
    no_key = {"X-Api-Key": anthropic.omit, "Authorization": anthropic.omit}
    with pytest.raises(anthropic.AuthenticationError) as info:
        client.messages.create(model=MODEL, max_tokens=64, messages=[user("hi")],
                               extra_headers=no_key)
    assert (
        info.value.status_code == 401 and info.value.body["error"]["type"] == "authentication_error"
    )
    assert message_of(info.value) == "x-api-key header is required"


def test_unknown_path_is_404(api):
    client = make_client(api, max_retries=0)
    with pytest.raises(anthropic.NotFoundError) as info:
        client.post("/v1/complete", body={}, cast_to=anthropic.types.Message)
    assert info.value.status_code == 404 and info.value.body["error"]["type"] == "not_found_error"


def test_oversized_request_is_413():
    api = LocalAPI(Scripted([], then=Turn([text("ok")])), max_request_bytes=10_000)
    e = rejected(api, anthropic.RequestTooLargeError, messages=[user("x" * 10_000)])
    assert e.status_code == 413 and "exceeds the maximum allowed number of bytes" in message_of(e)
    assert (
        make_client(api)
        .messages.create(model=MODEL, max_tokens=8, messages=[user("x" * 100)])
        .content
    )
