"""Checks P1 at both ends first and returns at once: ('P1', last) is reported before an earlier P2 or P3 break."""
from course.grading.judging.checks.l01_messages_and_blocks import P1_FIRST as MISTAKE

GRADE_ID = "first_violation"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "several breaks: the earliest message, and P1 before P2 before P3 at one message",
]


def first_violation(messages):
    def blocks(m):
        return [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]

    if not messages or messages[0]["role"] != "user":
        return ("P1", 0)
    if messages[-1]["role"] != "user":
        return ("P1", len(messages) - 1)  # the mistake: an earlier message may break P2 or P3
    answered = {}
    for i, m in enumerate(messages):
        ids = [b["id"] for b in blocks(m) if b["type"] == "tool_use"] if m["role"] == "assistant" else []
        if ids:
            after = messages[i + 1] if messages[i + 1]["role"] == "user" else None
            head = blocks(after)[:len(ids)] if after else []
            if [b.get("tool_use_id") if b["type"] == "tool_result" else None for b in head] != ids:
                return ("P2", i)
            answered[i + 1] = len(ids)
        if any(b["type"] == "tool_result" for b in blocks(m)[answered.get(i, 0):]):
            return ("P3", i)
    return None
