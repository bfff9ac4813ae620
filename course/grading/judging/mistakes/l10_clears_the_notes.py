"""Replaces every block of an old turn's message, the user's text note included."""
from course.grading.judging.checks.l10_managing_the_context import TOO_MUCH as MISTAKE

GRADE_ID = "clear_old_results"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "blocks, ids, is_error, text and tool_use blocks stay as they are; a turn is a user message holding results",
]


def clear_old_results(messages, keep, placeholder):
    turns = [i for i, m in enumerate(messages)
             if m["role"] == "user" and any(b.get("type") == "tool_result" for b in m["content"])]
    old = set(turns[:max(len(turns) - keep, 0)])
    out = []
    for i, m in enumerate(messages):
        if i in old:  # the mistake: the text block becomes a result's placeholder too
            m = {**m, "content": [{**b, "content": placeholder} if b.get("type") == "tool_result"
                                  else {"type": "text", "text": placeholder} for b in m["content"]]}
        out.append(m)
    return out
