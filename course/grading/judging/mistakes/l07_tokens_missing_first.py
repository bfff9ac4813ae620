"""Leaves out the first call, whose input is s: one number short."""
from course.grading.judging.checks.l07_context_growth_and_budgets import FIRST_CALL as MISTAKE

GRADE_ID = "input_tokens"


def input_tokens(s, turns):
    n, out = s, []
    for grown in turns:
        n += grown
        out.append(n)  # the mistake: n_1 = s is never listed
    return out
