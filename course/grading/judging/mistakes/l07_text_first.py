"""Puts the notes before the tool results (exercise 10.2)."""
from course.grading.judging.checks.l07_context_growth_and_budgets import TEXT_FIRST as MISTAKE

GRADE_ID = "user_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the tool_result blocks first, then one text block per note; the arguments are left unchanged",
]


def user_turn(results, notes):
    return {"role": "user", "content": [{"type": "text", "text": n} for n in notes] + list(results)}  # the mistake
