"""Compares inputs by their JSON text, so the same input written in another key order looks new."""
import json

from course.grading.judging.checks.l09_guards_and_observability import SAME_INPUT as MISTAKE

GRADE_ID = "repeated_call"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "identical: the same name and an equal input, compared as values",
]


def repeated_call(calls, max_repeats=3):
    streak, last = 0, None
    for i, (name, input) in enumerate(calls):
        key = (name, json.dumps(input))  # the mistake: key order counts
        streak = streak + 1 if key == last else 1
        last = key
        if streak >= max_repeats:
            return i
    return None
