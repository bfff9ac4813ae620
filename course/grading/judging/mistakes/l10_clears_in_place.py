"""Clears the old results in the caller's own blocks, so the history it was given changes too."""
from course.grading.judging.checks.l10_managing_the_context import IN_PLACE as MISTAKE

GRADE_ID = "clear_old_results"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "messages is left unchanged: a new list is returned",
]


def clear_old_results(messages, keep, placeholder):
    turns = [m for m in messages if m["role"] == "user" and any(b.get("type") == "tool_result" for b in m["content"])]
    for m in turns[:max(len(turns) - keep, 0)]:
        for b in m["content"]:
            if b.get("type") == "tool_result":
                b["content"] = placeholder  # the mistake: the caller's block is changed
    return messages
