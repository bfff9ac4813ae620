"""Counts only the tool-use rounds as calls, forgetting the call that brings the answer."""
from course.grading.judging.checks.l04_termination import NO_ANSWER_CALL as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(rounds, max_turns):
    if max_turns is None or rounds <= max_turns:
        return rounds, True  # the mistake: the answer is one more call
    return max_turns, False
