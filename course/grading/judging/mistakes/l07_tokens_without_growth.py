"""Adds each turn's growth to the first call only, not to the running input: n_k = s + a_(k-1) + r_(k-1)."""
from course.grading.judging.checks.l07_context_growth_and_budgets import LINEAR as MISTAKE

GRADE_ID = "input_tokens"


def input_tokens(s, turns):
    return [s] + [s + grown for grown in turns]  # the mistake: call k+1 resends all earlier turns, not only the last
