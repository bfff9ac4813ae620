"""`turns < max_turns`: a run that needs exactly max_turns turns is taken for capped."""
from course.grading.checks.l04_termination import CAP_BOUNDARY as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(turns, max_turns):
    if max_turns is None or turns < max_turns:  # the mistake: turns == max_turns still finishes
        return turns + 1, True
    return max_turns + 1, False
