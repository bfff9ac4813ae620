"""Prices and the cost of a response: the one table, with its date."""
from __future__ import annotations

# USD per million tokens (input, output); a third-party snapshot, see PRICES_AS_OF.
PRICES_AS_OF = "2026-10"
PRICES = {
    "haiku": (1.0, 5.0),
    "sonnet": (3.0, 15.0),
    "opus": (5.0, 25.0),
}
CACHE_WRITE_5M = 1.25  # multiplier on the input price for a 5-minute cache write
CACHE_WRITE_1H = 2.0  # ... for a 1-hour cache write
CACHE_READ = 0.1  # ... for a cache read


def prices(model: str) -> tuple[float, float]:
    """(input, output) USD per million tokens for a model id, by its family."""
    for family, price in PRICES.items():
        if family in model:
            return price
    raise KeyError(f"no price for model {model!r}; known families: {', '.join(PRICES)}")


def cost_usd(model: str, usage) -> float:
    """What one response costs, from its `usage` (SDK object or dict).

    Cache writes cost 1.25x the input price (2x for the 1-hour TTL, when
    `usage.cache_creation` splits them), cache reads 0.1x.
    """
    u = usage if isinstance(usage, dict) else usage.model_dump()
    price_in, price_out = prices(model)
    written = u.get("cache_creation_input_tokens") or 0
    written_1h = (u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0
    read = u.get("cache_read_input_tokens") or 0
    tokens_in = (u["input_tokens"] + CACHE_WRITE_5M * (written - written_1h) + CACHE_WRITE_1H * written_1h
                 + CACHE_READ * read)
    return (tokens_in * price_in + u["output_tokens"] * price_out) / 1_000_000
