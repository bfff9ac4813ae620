"""Rounds (W - s)/c to the nearest whole number instead of down."""
from course.grading.judging.checks.l07_context_growth_and_budgets import FLOOR as MISTAKE

GRADE_ID = "max_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "K <= (W - s)/c + 1 in whole calls, and 0 when not even the first call fits",
]


def max_calls(window, s, c):
    return max(0, round((window - s) / c) + 1)  # the mistake
