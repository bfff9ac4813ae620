"""Reads every message's content as a list of blocks: a content given as a string is iterated letter by letter."""
from course.grading.judging.checks.l01_messages_and_blocks import STRING_CONTENT as MISTAKE

GRADE_ID = "first_violation"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a list that keeps P1-P3 gives None",
    "P1: the first and the last message are from the user (index 0 or the last index; an empty list breaks it at 0)",
    "P2: each assistant tool_use answered first, in order, in the next user message (index: the assistant message)",
    "P3: no other tool_result anywhere (index: the message holding it)",
    "several breaks: the earliest message, and P1 before P2 before P3 at one message",
    "the list is left unchanged",
]


def first_violation(messages):
    if not messages:
        return ("P1", 0)
    found = []
    if messages[0]["role"] != "user":
        found.append(("P1", 0))
    if messages[-1]["role"] != "user":
        found.append(("P1", len(messages) - 1))
    answered = {}
    for i, m in enumerate(messages):
        ids = [b["id"] for b in m["content"] if b["type"] == "tool_use"] if m["role"] == "assistant" else []  # the mistake
        if not ids:
            continue
        after = messages[i + 1] if i + 1 < len(messages) and messages[i + 1]["role"] == "user" else None
        head = after["content"][:len(ids)] if after else []
        if [b.get("tool_use_id") if b["type"] == "tool_result" else None for b in head] == ids:
            answered[i + 1] = len(ids)
        else:
            found.append(("P2", i))
    for i, m in enumerate(messages):
        if any(b["type"] == "tool_result" for b in m["content"][answered.get(i, 0):]):
            found.append(("P3", i))
    return min(found, key=lambda v: (v[1], v[0])) if found else None
