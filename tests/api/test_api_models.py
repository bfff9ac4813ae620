"""Models as the real API serves them, through the genuine SDK on both mounts: GET /v1/models, a 404
for an unknown id, and each model's own limits (max output tokens, forced tool_choice)."""
from __future__ import annotations

import anthropic
import pytest

from course.api import MODELS, LocalAPI, Scripted, Turn
from course.client import MODEL
from course.messages import text, user

SEARCH = {"name": "search",
          "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}


def api() -> LocalAPI:
    return LocalAPI(Scripted([], then=Turn([text("1974")])))


def test_models_list_and_retrieve(mount):
    client = mount(api())
    listed = client.models.list()
    assert [m.id for m in listed.data] == [m.id for m in sorted(
        MODELS.values(), key=lambda m: m.created_at, reverse=True)]
    assert MODEL in {m.id for m in listed.data} and listed.has_more is False
    one = client.models.retrieve("claude-opus-5-5")
    assert (one.id, one.display_name, one.type) == ("claude-opus-5-5", "Claude Opus 5.5", "model")
    with pytest.raises(anthropic.NotFoundError, match="model: claude-opus-9"):
        client.models.retrieve("claude-opus-9")


@pytest.mark.parametrize("endpoint", ["create", "count_tokens"])
def test_an_unknown_model_is_a_404_naming_it(mount, endpoint):
    client = mount(api(), max_retries=0)
    request = {"model": "claude-haiku-55", "messages": [user("When?")]}
    with pytest.raises(anthropic.NotFoundError) as info:
        if endpoint == "create":
            client.messages.create(max_tokens=8, **request)
        else:
            client.messages.count_tokens(**request)
    assert info.value.body["error"] == {"type": "not_found_error",
                                        "message": "model: claude-haiku-55"}


def test_max_tokens_zero_is_allowed(mount):
    reply = mount(api()).messages.create(model=MODEL, max_tokens=0, messages=[user("When?")])
    assert reply.stop_reason == "max_tokens" and reply.content == []


@pytest.mark.parametrize("model, maximum",
                         [("claude-haiku-5-5", 128_000), ("claude-haiku-4-5", 64_000)])
def test_max_tokens_above_the_models_maximum_is_a_400(mount, model, maximum):
    # a timeout of its own: the SDK asks to stream long requests
    client = mount(api(), max_retries=0, timeout=30)
    assert client.messages.create(model=model, max_tokens=maximum, messages=[user("When?")]).content
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model=model, max_tokens=maximum + 1, messages=[user("When?")])
    assert info.value.body["error"]["message"] == (f"max_tokens: {maximum + 1} > {maximum}, which "
                                                   "is the maximum allowed number of output "
                                                   f"tokens for {model}")


@pytest.mark.parametrize("model", ["claude-sonnet-5-5", "claude-opus-5-5"])
@pytest.mark.parametrize("choice", [{"type": "any"}, {"type": "tool", "name": "search"}])
def test_forced_tool_choice_is_a_400_on_sonnet_and_opus_5_5(mount, model, choice):
    client = mount(api(), max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as info:
        client.messages.create(model=model, max_tokens=64, messages=[user("When?")], tools=[SEARCH],
                               tool_choice=choice)
    assert info.value.body["error"]["message"] == ('tool_choice: type "tool" and "any" are not '
                                                   'supported for this model.')
    auto = client.messages.create(model=model, max_tokens=64, messages=[user("When?")],
                                  tools=[SEARCH])
    assert auto.content[0].text == "1974"
