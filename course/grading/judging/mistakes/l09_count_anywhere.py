"""Counts identical calls anywhere in the history, not in a row."""
import json

from course.grading.judging.checks.l09_guards_and_observability import IN_A_ROW as MISTAKE

GRADE_ID = "repeated_call"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the index of the call that makes max_repeats identical calls in a row, or None",
]


def repeated_call(calls, max_repeats=3):
    seen = {}
    for i, (name, input) in enumerate(calls):
        key = (name, json.dumps(input, sort_keys=True))
        seen[key] = seen.get(key, 0) + 1  # the mistake
        if seen[key] >= max_repeats:
            return i
    return None
