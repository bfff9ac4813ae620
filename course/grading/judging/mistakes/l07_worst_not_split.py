"""The textbook pair (B - delta, c_max), without splitting B - delta when it exceeds c_max."""
from course.grading.judging.checks.l07_context_growth_and_budgets import SPLIT as MISTAKE

GRADE_ID = "worst_costs"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "costs at most c_max that stop at B + c_max - delta",
]


def worst_costs(budget, c_max, delta):
    return [budget - delta, c_max]  # the mistake
