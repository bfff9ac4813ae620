"""The one place that builds clients, and the one place model ids live."""
from __future__ import annotations

import typing

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Server, Turn
from course.client import MODEL, MODELS, LiveAPIUnavailable, make_client, wants_live
from course.messages import text, user
from course.pricing import prices

POLICY = Scripted([], then=Turn([text("1974")]))


def known_models() -> set[str]:
    """Every literal model id in the SDK's `anthropic.types.Model` (a Union of Literal[...] and str)."""
    found, todo = set(), [anthropic.types.Model]
    while todo:
        for arg in typing.get_args(todo.pop()):
            if isinstance(arg, str):
                found.add(arg)
            else:
                todo.append(arg)
    return found


@pytest.mark.parametrize("model", sorted({MODEL, *MODELS.values()}))
def test_model_ids_are_known_to_the_sdk(model):
    assert model in known_models(), f"{model} is not in anthropic.types.Model: retired or misspelled"


@pytest.mark.parametrize("model", sorted({MODEL, *MODELS.values()}))
def test_every_model_has_a_price(model):
    assert all(p > 0 for p in prices(model))


def test_live_without_a_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LiveAPIUnavailable, match="ANTHROPIC_API_KEY"):
        make_client(live=True)


def test_live_with_a_key_targets_the_real_api_but_tests_cannot_reach_it(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    client = make_client(live=True, max_retries=0)
    assert str(client.base_url).startswith("https://api.anthropic.com")
    with pytest.raises(anthropic.APIConnectionError) as info:  # the conftest guard stops the connection
        client.messages.create(model=MODEL, max_tokens=8, messages=[user("hi")])
    assert "tests may not reach the network" in str(info.value.__cause__)


def test_local_client_answers_in_process():
    api = LocalAPI(POLICY)
    reply = make_client(api).messages.create(model=MODEL, max_tokens=8, messages=[user("When?")])
    assert isinstance(reply, anthropic.types.Message) and reply.content[0].text == "1974"
    assert [r.status for r in api.requests] == [200]


def test_a_bare_policy_gets_its_own_local_api():
    assert make_client(POLICY).messages.create(model=MODEL, max_tokens=8, messages=[user("When?")]).content


def test_base_url_reaches_a_loopback_server():
    api = LocalAPI(POLICY)
    with Server(api) as server:
        client = make_client(base_url=server.base_url)
        assert client.messages.create(model=MODEL, max_tokens=8, messages=[user("When?")]).content[0].text == "1974"
    assert len(api.requests) == 1


def test_no_policy_no_url_not_live_is_refused():
    with pytest.raises(TypeError, match="needs a policy"):
        make_client()


@pytest.mark.parametrize("env, expected", [({"COURSE_LIVE": "1", "ANTHROPIC_API_KEY": "k"}, True),
                                           ({"COURSE_LIVE": "1"}, False),
                                           ({"ANTHROPIC_API_KEY": "k"}, False)])
def test_wants_live_needs_both_the_switch_and_the_key(monkeypatch, env, expected):
    for name in ("COURSE_LIVE", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert wants_live() is expected
