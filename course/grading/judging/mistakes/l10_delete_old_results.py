"""Deletes old tool_result blocks instead of clearing their content."""
from course.grading.judging.checks.l10_managing_the_context import DROPPED as MISTAKE

GRADE_ID = "clear_old_results"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the tool_result blocks of every turn but the last keep have their content replaced by the placeholder",
    "blocks, ids, is_error, text and tool_use blocks stay as they are; a turn is a user message holding results",
]


def clear_old_results(messages, keep, placeholder):
    turns = [i for i, m in enumerate(messages) if any(b.get("type") == "tool_result" for b in m["content"])]
    old = set(turns[:len(turns) - keep]) if keep else set(turns)
    out = []
    for i, m in enumerate(messages):
        if i in old:  # the mistake: the blocks go, so their tool_uses are unanswered
            m = {**m, "content": [b for b in m["content"] if b.get("type") != "tool_result"] or [{"type": "text", "text": placeholder}]}
        out.append(m)
    return out
