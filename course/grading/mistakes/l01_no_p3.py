"""Checks P1 and P2 but never looks for stray tool_result blocks (P3)."""
from course.grading.checks.l01_messages_and_blocks import STRAY as MISTAKE

GRADE_ID = "first_violation"


def first_violation(messages):
    if messages[0]["role"] != "user":
        return ("P1", 0)
    if messages[-1]["role"] != "user":
        return ("P1", len(messages) - 1)
    for i, m in enumerate(messages):
        ids = [b["id"] for b in m["content"] if b["type"] == "tool_use"]
        if ids:
            head = messages[i + 1]["content"][:len(ids)]
            if messages[i + 1]["role"] != "user" or [b.get("tool_use_id") for b in head] != ids:
                return ("P2", i)
    return None  # the mistake: P3 is never checked
