"""Prices every prefix as cached, however short."""
from course.grading.judging.checks.l10_managing_the_context import TOO_SMALL as MISTAKE

GRADE_ID = "cache_costs"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a prefix below min_cacheable is not cached; one of exactly min_cacheable tokens is",
]


def cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024):
    usd = prefix_tokens * price_in / 1_000_000
    return calls * usd, usd * (1.25 + 0.1 * (calls - 1))  # the mistake: min_cacheable is ignored
