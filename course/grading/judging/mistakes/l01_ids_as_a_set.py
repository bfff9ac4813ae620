"""Compares the result ids with the tool_use ids as sets, so results in the wrong order pass."""
from course.grading.judging.checks.l01_messages_and_blocks import ORDER as MISTAKE

GRADE_ID = "first_violation"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "P2: each assistant tool_use answered first, in order, in the next user message (index: the assistant message)",
    "several breaks: the earliest message, and P1 before P2 before P3 at one message",
]


def first_violation(messages):
    def blocks(m):
        return [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]

    if not messages:
        return ("P1", 0)
    found = []
    if messages[0]["role"] != "user":
        found.append(("P1", 0))
    if messages[-1]["role"] != "user":
        found.append(("P1", len(messages) - 1))
    answered = {}
    for i, m in enumerate(messages):
        ids = [b["id"] for b in blocks(m) if b["type"] == "tool_use"] if m["role"] == "assistant" else []
        if not ids:
            continue
        after = messages[i + 1] if i + 1 < len(messages) and messages[i + 1]["role"] == "user" else None
        head = blocks(after)[:len(ids)] if after else []
        if {b.get("tool_use_id") for b in head if b["type"] == "tool_result"} == set(ids):  # the mistake: no order
            answered[i + 1] = len(ids)
        else:
            found.append(("P2", i))
    for i, m in enumerate(messages):
        if any(b["type"] == "tool_result" for b in blocks(m)[answered.get(i, 0):]):
            found.append(("P3", i))
    return min(found, key=lambda v: (v[1], v[0])) if found else None
