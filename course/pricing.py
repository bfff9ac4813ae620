"""Prices and the cost of a response: the one table, with its date, looked up by exact model id."""
from __future__ import annotations

from dataclasses import dataclass

# read from the official pricing pages (Haiku 5.5's tiers: third-party quotes)
PRICES_AS_OF = "2026-11-30"
# Haiku 5.5: a prompt longer than this pays the higher tier for the whole request
TIER_ABOVE = 100_000
CACHE_WRITE_5M = 1.25  # multiplier on the input price for a 5-minute cache write (every model)
CACHE_WRITE_1H = 2.0  # ... for a 1-hour cache write
CACHE_READ = 0.1  # ... for a cache read on Haiku (4.5 and 5.5); Sonnet and Opus 5.5 read at 0.05x


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float
    write_5m: float  # 5-minute cache write
    write_1h: float  # 1-hour cache write
    read: float  # cache read


# a pair: (up to TIER_ABOVE prompt tokens, above it)
PRICES: dict[str, Price | tuple[Price, Price]] = {
    "claude-haiku-5-5": (Price(0.10, 0.50, 0.125, 0.20, 0.01), Price(0.50, 2.50, 0.625, 1.0, 0.05)),
    "claude-sonnet-5-5": Price(2.0, 10.0, 2.50, 4.0, 0.10),
    "claude-opus-5-5": Price(4.0, 20.0, 5.0, 8.0, 0.20),
    "claude-haiku-4-5": Price(1.0, 5.0, 1.25, 2.0, 0.10),
}


def price(model: str, prompt_tokens: int = 0) -> Price:
    """The price of `model` (an exact id) for a request of `prompt_tokens` input tokens (cache
    included)."""
    if model not in PRICES:
        raise KeyError(f"no price for model {model!r} (prices as of {PRICES_AS_OF}); priced "
                       f"models: {', '.join(PRICES)}")
    found = PRICES[model]
    if isinstance(found, tuple):
        return found[prompt_tokens > TIER_ABOVE]
    return found


def prices(model: str) -> tuple[float, float]:
    """(input, output) USD per million tokens for a model id (the lowest tier)."""
    p = price(model)
    return p.input, p.output


def cost_usd(model: str, usage) -> float:
    """What one response costs, from its `usage` (SDK object or dict).

    Cache writes and reads are priced separately (5-minute and 1-hour writes
    when `usage.cache_creation` splits them); a tiered model's rate depends on
    the whole prompt, cache reads and writes included.
    """
    u = usage if isinstance(usage, dict) else usage.model_dump()
    written = u.get("cache_creation_input_tokens") or 0
    written_1h = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
    read = u.get("cache_read_input_tokens") or 0
    p = price(model, u["input_tokens"] + written + read)
    usd = (
        u["input_tokens"] * p.input
        + (written - written_1h) * p.write_5m
        + written_1h * p.write_1h
        + read * p.read
        + u["output_tokens"] * p.output
    )
    return usd / 1_000_000
