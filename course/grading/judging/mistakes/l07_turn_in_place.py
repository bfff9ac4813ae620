"""Appends the notes to the results list it was given: the caller's list changes."""
from course.i18n import deferred

MISTAKE = deferred("adding the notes to the caller's results list: it changes; build a new content list")

GRADE_ID = "user_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the tool_result blocks first, then one text block per note; the arguments are left unchanged",
]


def user_turn(results, notes):
    results += [{"type": "text", "text": note} for note in notes]  # the mistake: changes the caller's list
    return {"role": "user", "content": results}
