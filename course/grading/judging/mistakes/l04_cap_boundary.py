"""`rounds < max_turns`: a run that needs exactly max_turns rounds is taken for capped."""
from course.grading.judging.checks.l04_termination import CAP_BOUNDARY as MISTAKE

GRADE_ID = "calls_needed"


def calls_needed(rounds, max_turns):
    if max_turns is None or rounds < max_turns:  # the mistake: rounds == max_turns still finishes
        return rounds + 1, True
    return max_turns + 1, False
