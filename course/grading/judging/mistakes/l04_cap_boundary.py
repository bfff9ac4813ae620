"""`turns < max_turns`: a run that needs exactly max_turns turns is taken for capped."""
from course.grading.judging.checks.l04_termination import CAP_BOUNDARY as MISTAKE

GRADE_ID = "calls_needed"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "no cap (None), or turns <= max_turns: turns + 1 calls, and the run finishes",
    "max_turns=0 allows no tool-use turn: one call, which finishes only when turns is 0",
]


def calls_needed(turns, max_turns):
    if max_turns is None or turns < max_turns:  # the mistake: turns == max_turns still finishes
        return turns + 1, True
    return max_turns + 1, False
