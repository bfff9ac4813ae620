"""Prices the cache write like a plain input."""
from course.grading.judging.checks.l10_managing_the_context import WRITE_PRICE as MISTAKE

GRADE_ID = "cache_costs"


def cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024):
    usd = prefix_tokens * price_in / 1_000_000
    if prefix_tokens < min_cacheable:
        return calls * usd, calls * usd
    return calls * usd, usd * (1 + 0.1 * (calls - 1))
