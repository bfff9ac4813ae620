"""Looks for stray tool_result blocks only in user messages; one inside an assistant message goes unseen."""
from course.grading.judging.checks.l01_messages_and_blocks import USER_ONLY as MISTAKE

GRADE_ID = "first_violation"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "P3: no other tool_result anywhere (index: the message holding it)",
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
        if [b.get("tool_use_id") if b["type"] == "tool_result" else None for b in head] == ids:
            answered[i + 1] = len(ids)
        else:
            found.append(("P2", i))
    for i, m in enumerate(messages):
        if m["role"] == "user" and any(b["type"] == "tool_result" for b in blocks(m)[answered.get(i, 0):]):  # the mistake
            found.append(("P3", i))
    return min(found, key=lambda v: (v[1], v[0])) if found else None
