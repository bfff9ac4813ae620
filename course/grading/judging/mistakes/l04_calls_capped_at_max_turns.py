"""Counts max_turns as model calls: min(turns + 1, max_turns)."""
from course.grading.judging.checks.l04_termination import CAP_AS_CALLS as MISTAKE

GRADE_ID = "calls_needed"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "no cap (None), or turns <= max_turns: turns + 1 calls, and the run finishes",
    "turns > max_turns: max_turns + 1 calls, and the run does not finish",
    "max_turns=0 allows no tool-use turn: one call, which finishes only when turns is 0",
]


def calls_needed(turns, max_turns):
    if max_turns is None:
        return turns + 1, True
    return min(turns + 1, max_turns), turns + 1 <= max_turns  # the mistake
