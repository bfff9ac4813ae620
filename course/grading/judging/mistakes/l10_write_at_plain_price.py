"""Prices the cache write like a plain input."""
from course.grading.judging.checks.l10_managing_the_context import WRITE_PRICE as MISTAKE

GRADE_ID = "cache_costs"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "with_usd: a 5-minute write at 1.25x on the first call, reads at 0.1x on the others",
    "a prefix below min_cacheable is not cached; one of exactly min_cacheable tokens is",
]


def cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024):
    usd = prefix_tokens * price_in / 1_000_000
    if prefix_tokens < min_cacheable:
        return calls * usd, calls * usd
    return calls * usd, usd * (1 + 0.1 * (calls - 1))  # the mistake
