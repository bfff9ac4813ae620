"""Returns the results alone: the notes never reach the model."""
from course.i18n import deferred

MISTAKE = deferred("leaving the notes out: each note becomes a text block after the tool_result blocks")

GRADE_ID = "user_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the tool_result blocks first, then one text block per note; the arguments are left unchanged",
]


def user_turn(results, notes):
    return {"role": "user", "content": list(results)}  # the mistake: notes dropped
