"""Compares tool names only, so three different searches look like a loop."""
from course.grading.judging.checks.l09_guards_and_observability import NAME_ONLY as MISTAKE

GRADE_ID = "repeated_call"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the index of the call that makes max_repeats identical calls in a row, or None",
    "identical: the same name and an equal input, compared as values",
]


def repeated_call(calls, max_repeats=3):
    streak = 0
    for i, (name, input) in enumerate(calls):
        streak = streak + 1 if i > 0 and calls[i - 1][0] == name else 1  # the mistake: the input is ignored
        if streak >= max_repeats:
            return i
    return None
