"""Counts only the tool-use turns as calls, forgetting the call that brings the answer."""
from course.grading.checks.l04_termination import NO_ANSWER_CALL as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(turns, max_turns):
    if max_turns is None or turns <= max_turns:
        return turns, True  # the mistake: the answer is one more call
    return max_turns, False
