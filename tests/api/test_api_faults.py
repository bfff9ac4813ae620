"""Faults on demand, and the SDK's own retries, on both mounts (in-process and loopback HTTP)."""
from __future__ import annotations

import anthropic
import pytest

from course.api import Fault, LocalAPI, Scripted, Server, Turn
from course.client import MODEL, make_client
from course.messages import text, user

REQUEST = {"model": MODEL, "max_tokens": 64, "messages": [user("When was she born?")]}


@pytest.fixture
def api():
    return LocalAPI(Scripted([], then=Turn([text("1974")])))


def statuses(api: LocalAPI) -> list[int]:
    return [r.status for r in api.requests]


@pytest.mark.parametrize("kind, status",
                         [("rate_limit", 429), ("overloaded", 529), ("server_error", 500)])
def test_the_sdk_retries_and_succeeds(mount, api, kind, status):
    api.inject(kind, times=2, retry_after=0.01)
    reply = mount(api, max_retries=2).messages.create(**REQUEST)
    assert reply.content[0].text == "1974"
    assert statuses(api) == [status, status, 200]  # every attempt crossed the wire


@pytest.mark.parametrize("kind, error", [("rate_limit", anthropic.RateLimitError),
                                         ("overloaded", anthropic.OverloadedError),
                                         ("server_error", anthropic.InternalServerError)])
def test_without_retries_the_sdk_raises(mount, api, kind, error):
    api.inject(kind, retry_after=0.01)
    with pytest.raises(error) as info:
        mount(api, max_retries=0).messages.create(**REQUEST)
    assert statuses(api) == [info.value.status_code]
    assert info.value.body["error"]["type"] == {"rate_limit": "rate_limit_error",
                                                "overloaded": "overloaded_error",
                                                "server_error": "api_error"}[kind]


def test_retries_run_out(mount, api):
    api.inject("overloaded", times=3, retry_after=0.01)
    with pytest.raises(anthropic.OverloadedError):
        mount(api, max_retries=2).messages.create(**REQUEST)
    assert statuses(api) == [529, 529, 529]


def test_rate_limit_says_when_to_retry(mount, api):
    api.inject("rate_limit", retry_after=2.5)
    with pytest.raises(anthropic.RateLimitError) as info:
        mount(api, max_retries=0).messages.create(**REQUEST)
    assert info.value.response.headers["retry-after-ms"] == "2500"
    assert info.value.response.headers["retry-after"] == "2"


def test_retry_after_only_when_asked_except_for_rate_limits():
    assert Fault("rate_limit").error().headers["retry-after"] == "1"
    assert "retry-after" not in Fault("overloaded").error().headers
    assert Fault("overloaded", retry_after=0.5).error().headers["retry-after-ms"] == "500"
    assert Fault("server_error", retry_after=3).error().headers["retry-after"] == "3"


def test_unknown_fault_is_refused(api):
    with pytest.raises(ValueError, match="unknown fault 'flaky'"):
        api.inject("flaky")


def test_slow_answer_still_succeeds(mount, api):
    api.inject("slow", seconds=0.2)
    assert mount(api).messages.create(**REQUEST).content[0].text == "1974"
    assert statuses(api) == [200]


def test_slow_answer_and_short_timeout_raise_timeout_on_loopback(api):
    api.inject("slow", seconds=2.0)
    with Server(api) as server:
        client = make_client(base_url=server.base_url, max_retries=0, timeout=0.3)
        with pytest.raises(anthropic.APITimeoutError):
            client.messages.create(**REQUEST)


def test_a_failing_policy_is_a_500_that_is_not_retried(mount):
    def broken(conversation):
        raise KeyError("tool_results")

    api = LocalAPI(broken)
    with pytest.raises(anthropic.InternalServerError,
                       match="policy failed: KeyError: 'tool_results'"):
        mount(api, max_retries=2).messages.create(**REQUEST)
    assert statuses(api) == [500]
