"""Counts max_turns as model calls: min(rounds + 1, max_turns)."""
from course.grading.judging.checks.l04_termination import CAP_AS_CALLS as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(rounds, max_turns):
    if max_turns is None:
        return rounds + 1, True
    return min(rounds + 1, max_turns), rounds + 1 <= max_turns
