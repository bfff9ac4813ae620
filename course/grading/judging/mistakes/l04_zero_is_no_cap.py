"""`if not max_turns` for "no cap": max_turns=0 is read as no cap at all."""
from course.grading.judging.checks.l04_termination import ZERO_IS_NO_CAP as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(rounds, max_turns):
    if not max_turns or rounds <= max_turns:  # the mistake: 0 is falsy, like None
        return rounds + 1, True
    return max_turns + 1, False
