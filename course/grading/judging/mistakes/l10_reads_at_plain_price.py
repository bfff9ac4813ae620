"""Prices the cache reads like plain input: only the write is priced right."""
from course.grading.judging.checks.l10_managing_the_context import READ_PRICE as MISTAKE

GRADE_ID = "cache_costs"


def cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024):
    usd = prefix_tokens * price_in / 1_000_000
    if prefix_tokens < min_cacheable:
        return calls * usd, calls * usd
    return calls * usd, usd * (1.25 + 1.0 * (calls - 1))  # the mistake: a read costs 0.1x
