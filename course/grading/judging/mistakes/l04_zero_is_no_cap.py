"""`if not max_turns` for "no cap": max_turns=0 is read as no cap at all."""
from course.grading.judging.checks.l04_termination import ZERO_IS_NO_CAP as MISTAKE

GRADE_ID = "calls_needed"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "turns > max_turns: max_turns + 1 calls, and the run does not finish",
    "max_turns=0 allows no tool-use turn: one call, which finishes only when turns is 0",
]


def calls_needed(turns, max_turns):
    if not max_turns or turns <= max_turns:  # the mistake: 0 is falsy, like None
        return turns + 1, True
    return max_turns + 1, False
