"""Leaves out the first call, whose input is s: one number short."""
from course.grading.judging.checks.l07_context_growth_and_budgets import FIRST_CALL as MISTAKE

GRADE_ID = "input_tokens"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "n_k = s + the sum of the turns before call k, one number per call; turns is left unchanged",
]


def input_tokens(s, turns):
    n, out = s, []
    for grown in turns:
        n += grown
        out.append(n)  # the mistake: n_1 = s is never listed
    return out
