"""usage from the documented token count, count_tokens, prompt caching, and what it costs."""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI, Scripted, Turn, tokens
from course.client import MODEL, make_client
from course.messages import text, user
from course.pricing import CACHE_READ, CACHE_WRITE_1H, CACHE_WRITE_5M, cost_usd, prices

# ~1300 tokens
BIG = "Aurora Run is a 1998 novel by Henrik Dahl; the 2011 film was directed by Mara Voss. " * 60
SMALL = "Answer in one word."


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def api(clock):
    return LocalAPI(Scripted([], then=Turn([text("1974")])), clock=clock)


def system(prompt: str, **cache_control) -> list[dict]:
    return [{"type": "text", "text": prompt,
             "cache_control": {"type": "ephemeral", **cache_control}}]


def ask(api, system_blocks, question="When was the director born?") -> anthropic.types.Usage:
    client = make_client(api)
    return client.messages.create(model=MODEL, max_tokens=64, system=system_blocks,
                                  messages=[user(question)]).usage


def test_usage_is_the_documented_count():
    api = LocalAPI(Scripted([Turn([text("1974")])]))
    body = {"model": MODEL, "max_tokens": 64, "system": SMALL,
            "messages": [user("When was she born?")]}
    reply = make_client(api).messages.create(**body)
    assert reply.usage.input_tokens == tokens.input_tokens(body)
    assert reply.usage.output_tokens == tokens.output_tokens([text("1974")]) == 2
    assert reply.usage.cache_creation_input_tokens == reply.usage.cache_read_input_tokens == 0


def test_count_tokens_agrees_with_usage():
    api = LocalAPI(Scripted([Turn([text("1974")])]))
    client = make_client(api)
    messages = [user("When was the director of Aurora Run born?")]
    counted = client.messages.count_tokens(
        model=MODEL, system=SMALL, messages=messages
    ).input_tokens
    reply = client.messages.create(model=MODEL, max_tokens=64, system=SMALL, messages=messages)
    assert counted == reply.usage.input_tokens
    assert [r.path for r in api.requests] == ["/v1/messages/count_tokens", "/v1/messages"]


def test_first_call_writes_the_cache_second_reads_it(api):
    first = ask(api, system(BIG))
    prefix = first.cache_creation_input_tokens
    assert prefix >= 1024 and first.cache_read_input_tokens == 0
    assert first.cache_creation.ephemeral_5m_input_tokens == prefix
    second = ask(api, system(BIG), question="And the novelist?")
    assert (second.cache_read_input_tokens, second.cache_creation_input_tokens) == (prefix, 0)
    # what is read is no longer billed as plain input
    whole = tokens.input_tokens({"system": system(BIG), "messages": [user("And the novelist?")]})
    assert second.input_tokens + prefix == whole


def test_short_prompts_are_never_cached(api):
    for _ in range(2):
        usage = ask(api, system(SMALL))
        assert usage.cache_creation_input_tokens == usage.cache_read_input_tokens == 0


def test_a_changed_prefix_misses_the_cache(api):
    ask(api, system(BIG))
    usage = ask(api, system(BIG + " Also: the northern lights."))
    assert usage.cache_read_input_tokens == 0 and usage.cache_creation_input_tokens >= 1024


def test_the_cache_expires_after_five_minutes_unless_read(api, clock):
    ask(api, system(BIG))
    clock.now = 299
    assert ask(api, system(BIG)).cache_read_input_tokens > 0
    clock.now = 500
    # the read at 299 refreshed the five minutes
    assert ask(api, system(BIG)).cache_read_input_tokens > 0
    clock.now = 500 + 301
    assert ask(api, system(BIG)).cache_read_input_tokens == 0


def test_one_hour_ttl(api, clock):
    usage = ask(api, system(BIG, ttl="1h"))
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    clock.now = 3000
    assert ask(api, system(BIG, ttl="1h")).cache_read_input_tokens > 0


def test_automatic_caching_marks_the_end_of_the_prompt(api):
    client = make_client(api)
    body = {"model": MODEL, "max_tokens": 64, "system": BIG, "messages": [user("When?")]}
    first = client.messages.create(
        **body, extra_body={"cache_control": {"type": "ephemeral"}}
    ).usage
    assert (
        first.cache_creation_input_tokens == tokens.input_tokens(body) and first.input_tokens == 0
    )


def test_cost_applies_write_and_read_multipliers():
    price_in, price_out = prices(MODEL)
    usage = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 2000,
             "cache_read_input_tokens": 3000}
    expected = (100 + 1.25 * 2000 + 0.1 * 3000) * price_in + 10 * price_out
    assert cost_usd(MODEL, usage) == pytest.approx(expected / 1e6)
    assert (CACHE_WRITE_5M, CACHE_WRITE_1H, CACHE_READ) == (1.25, 2.0, 0.1)


def test_cost_prices_one_hour_writes_at_twice_the_input(api):
    price_in, price_out = prices(MODEL)
    usage = ask(api, system(BIG, ttl="1h"))
    written = usage.cache_creation_input_tokens
    expected = (usage.input_tokens + 2.0 * written) * price_in + usage.output_tokens * price_out
    assert cost_usd(MODEL, usage) == pytest.approx(expected / 1e6)


def test_cost_of_a_cached_call_is_lower(api):
    first, second = ask(api, system(BIG)), ask(api, system(BIG))
    assert cost_usd(MODEL, second) < cost_usd(MODEL, first)


def test_cost_uses_each_models_own_cache_prices():
    usage = {"input_tokens": 1000, "output_tokens": 100, "cache_creation_input_tokens": 2000,
             "cache_read_input_tokens": 3000}
    # Sonnet 5.5: $2 in, $10 out, $2.50 per 5-minute write, $0.10 per read (0.05x, not 0.1x)
    assert cost_usd("claude-sonnet-5-5", usage) == pytest.approx(
        (1000 * 2 + 2000 * 2.5 + 3000 * 0.1 + 100 * 10) / 1e6)


def test_a_prompt_over_100k_tokens_pays_haiku_5_5s_higher_tier_on_every_token():
    small = {"input_tokens": 60_000, "output_tokens": 1000, "cache_read_input_tokens": 40_000}
    # 100,001 prompt tokens, cache reads included
    large = {**small, "cache_read_input_tokens": 40_001}
    assert cost_usd("claude-haiku-5-5", small) == pytest.approx(
        (60_000 * 0.10 + 40_000 * 0.01 + 1000 * 0.50) / 1e6)
    assert cost_usd("claude-haiku-5-5", large) == pytest.approx(
        (60_000 * 0.50 + 40_001 * 0.05 + 1000 * 2.50) / 1e6)


@pytest.mark.parametrize("model, cached", [("claude-haiku-5-5", True), ("claude-haiku-4-5", False)])
def test_the_cache_minimum_is_the_models(clock, model, cached):
    api = LocalAPI(Scripted([], then=Turn([text("1974")])), clock=clock)
    prompt = system(BIG[:2000])  # about 650 tokens: above Haiku 5.5's 512, below Haiku 4.5's 4,096
    usage = make_client(api).messages.create(model=model, max_tokens=64, system=prompt,
                                             messages=[user("When was she born?")]).usage
    assert (usage.cache_creation_input_tokens > 0) is cached
