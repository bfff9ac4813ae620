"""Counts a LangGraph step per tool call instead of per turn of tool execution."""
from course.grading.judging.checks.l04_termination import STEPS as MISTAKE

GRADE_ID = "count_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "steps: each model call and each turn of tool execution",
]


def count_run(messages):
    replies = [m for m in messages if m["role"] == "assistant"]
    uses = [[b for b in m["content"] if b["type"] == "tool_use"] for m in replies]
    calls = sum(len(u) for u in uses)
    return {"calls": len(replies), "turns": sum(1 for u in uses if u), "tool_calls": calls,
            "steps": len(replies) + calls}  # the mistake: one step per tool call
