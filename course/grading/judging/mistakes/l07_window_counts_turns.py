"""Counts the turns that fit, (W - s) // c, and forgets the first call."""
from course.grading.judging.checks.l07_context_growth_and_budgets import NO_PLUS_ONE as MISTAKE

GRADE_ID = "max_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "K <= (W - s)/c + 1 in whole calls, and 0 when not even the first call fits",
]


def max_calls(window, s, c):
    return max((window - s) // c, 0)  # the mistake: K = (W - s)/c + 1 calls
