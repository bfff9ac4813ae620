"""Counts max_turns as model calls: min(turns + 1, max_turns)."""
from course.grading.checks.l04_termination import CAP_AS_CALLS as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(turns, max_turns):
    if max_turns is None:
        return turns + 1, True
    return min(turns + 1, max_turns), turns + 1 <= max_turns
