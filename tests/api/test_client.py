"""The one place that builds clients, and the one place model ids live."""
from __future__ import annotations

import typing

import anthropic
import pytest
from anthropic._data import DEPRECATED_MODELS

from course.api import LocalAPI, Scripted, Server, Turn
from course.api.models import MODELS as SERVED
from course.client import MODEL, MODELS, LiveAPIUnavailable, make_client, wants_live
from course.messages import text, user
from course.pricing import PRICES, price, prices

EVERY_ID = sorted({MODEL, *MODELS.values(), *SERVED, *PRICES})

POLICY = Scripted([], then=Turn([text("1974")]))


def known_models() -> set[str]:
    """Every literal model id in the SDK's `anthropic.types.Model` (a Union of Literal[...] and
    str)."""
    found, todo = set(), [anthropic.types.Model]
    while todo:
        for arg in typing.get_args(todo.pop()):
            if isinstance(arg, str):
                found.add(arg)
            else:
                todo.append(arg)
    return found


@pytest.mark.parametrize("model", EVERY_ID)
def test_model_ids_are_known_to_the_sdk_and_not_deprecated(model):
    assert model in known_models(), (f"{model} is not in anthropic.types.Model: retired or "
                                     "misspelled")
    assert model not in DEPRECATED_MODELS, (f"{model} is deprecated: end of life "
                                            f"{DEPRECATED_MODELS.get(model)}")


def test_the_default_and_the_named_models_are_the_current_generation():
    assert MODEL == MODELS["haiku"] == "claude-haiku-5-5"
    assert all(SERVED[m].thinks and SERVED[m].max_output_tokens == 128_000 for m in MODELS.values())


@pytest.mark.parametrize("model", EVERY_ID)
def test_every_model_is_served_and_priced(model):
    assert model in SERVED and model in PRICES and all(p > 0 for p in prices(model))


def test_prices_are_looked_up_by_exact_id():
    with pytest.raises(KeyError, match="no price for model 'claude-haiku-5-5-fast'"):
        price("claude-haiku-5-5-fast")  # once matched the family "haiku"
    assert prices("claude-sonnet-5-5") == (2.0, 10.0) and prices("claude-opus-5-5") == (4.0, 20.0)


def test_haiku_5_5_is_tiered_by_the_whole_prompt():
    low, high = price("claude-haiku-5-5", 100_000), price("claude-haiku-5-5", 100_001)
    assert (low.input, low.output, low.write_5m, low.write_1h, low.read) == (
        0.10,
        0.50,
        0.125,
        0.20,
        0.01,
    )
    assert (high.input, high.output, high.write_5m, high.write_1h, high.read) == (
        0.50,
        2.50,
        0.625,
        1.0,
        0.05,
    )


def test_live_without_a_key_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LiveAPIUnavailable, match="ANTHROPIC_API_KEY"):
        make_client(live=True)


def test_live_with_a_key_targets_the_real_api_but_tests_cannot_reach_it(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    client = make_client(live=True, max_retries=0)
    assert str(client.base_url).startswith("https://api.anthropic.com")
    # the conftest guard stops the connection
    with pytest.raises(anthropic.APIConnectionError) as info:
        client.messages.create(model=MODEL, max_tokens=8, messages=[user("hi")])
    assert "tests may not reach the network" in str(info.value.__cause__)


def test_local_client_answers_in_process():
    api = LocalAPI(POLICY)
    reply = make_client(api).messages.create(model=MODEL, max_tokens=8, messages=[user("When?")])
    assert isinstance(reply, anthropic.types.Message) and reply.content[0].text == "1974"
    assert [r.status for r in api.requests] == [200]


def test_a_bare_policy_gets_its_own_local_api():
    assert (
        make_client(POLICY)
        .messages.create(model=MODEL, max_tokens=8, messages=[user("When?")])
        .content
    )


def test_base_url_reaches_a_loopback_server():
    api = LocalAPI(POLICY)
    with Server(api) as server:
        client = make_client(base_url=server.base_url)
        assert (
            client.messages.create(model=MODEL, max_tokens=8, messages=[user("When?")])
            .content[0]
            .text
            == "1974"
        )
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
