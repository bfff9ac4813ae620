"""Turns the list of turns into the running totals in place."""
from course.i18n import deferred

MISTAKE = deferred("writing the running totals into turns: the caller's list changes; build a new list")

GRADE_ID = "input_tokens"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "n_k = s + the sum of the turns before call k, one number per call; turns is left unchanged",
]


def input_tokens(s, turns):
    turns.insert(0, s)  # the mistake: the caller's list changes
    for k in range(1, len(turns)):
        turns[k] += turns[k - 1]
    return list(turns)
