"""Turns the list of turns into the running totals in place."""
MISTAKE = None  # the feedback shows the argument after the call

GRADE_ID = "input_tokens"


def input_tokens(s, turns):
    turns.insert(0, s)  # the mistake: the caller's list changes
    for k in range(1, len(turns)):
        turns[k] += turns[k - 1]
    return list(turns)
