"""Adds each turn's growth to the first call only, not to the running input: n_k = s + a_(k-1) + r_(k-1)."""
from course.grading.judging.checks.l07_context_growth_and_budgets import LINEAR as MISTAKE

GRADE_ID = "input_tokens"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "n_k = s + the sum of the turns before call k, one number per call; turns is left unchanged",
]


def input_tokens(s, turns):
    return [s] + [s + grown for grown in turns]  # the mistake: call k+1 resends all earlier turns, not only the last
