"""The textbook pair (B - delta, c_max), without splitting B - delta when it exceeds c_max."""
from course.grading.judging.checks.l07_context_growth_and_budgets import SPLIT as MISTAKE

GRADE_ID = "worst_costs"


def worst_costs(budget, c_max, delta):
    return [budget - delta, c_max]
