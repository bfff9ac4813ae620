"""Counts every tool_use block as a turn, so parallel calls look like several turns."""
from course.grading.judging.checks.l04_termination import PARALLEL as MISTAKE

GRADE_ID = "count_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "turns: the assistant messages with a tool_use",
    "steps: each model call and each turn of tool execution",
]


def count_run(messages):
    replies = [m for m in messages if m["role"] == "assistant"]
    tool_calls = sum(1 for m in replies for b in m["content"] if b["type"] == "tool_use")  # the mistake
    return {"calls": len(replies), "turns": tool_calls, "tool_calls": tool_calls, "steps": len(replies) + tool_calls}
