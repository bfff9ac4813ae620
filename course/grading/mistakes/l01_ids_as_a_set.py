"""Compares the result ids with the tool_use ids as sets, so results in the wrong order pass."""
from course.grading.checks.l01_messages_and_blocks import ORDER as MISTAKE
from course.grading.checks.l01_messages_and_blocks import STRAY

GRADE_ID = "first_violation"
ALSO = (STRAY,)  # the same code makes this mistake too


def first_violation(messages):
    if messages[0]["role"] != "user":
        return ("P1", 0)
    if messages[-1]["role"] != "user":
        return ("P1", len(messages) - 1)
    for i, m in enumerate(messages):
        ids = {b["id"] for b in m["content"] if b["type"] == "tool_use"}
        if ids:
            got = {b["tool_use_id"] for b in messages[i + 1]["content"][:len(ids)] if b["type"] == "tool_result"}
            if messages[i + 1]["role"] != "user" or got != ids:  # the mistake: a set forgets the order
                return ("P2", i)
    return None
