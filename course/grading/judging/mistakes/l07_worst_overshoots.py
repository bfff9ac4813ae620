"""Ends with a cost above c_max to land on B + c_max - delta in two responses."""
from course.grading.judging.checks.l07_context_growth_and_budgets import SPLIT as MISTAKE

GRADE_ID = "worst_costs"


def worst_costs(budget, c_max, delta):
    return [budget - delta, c_max]  # the mistake: budget - delta may be above c_max
