"""Pops the final answer off the history before counting the turns: the caller's list loses its last message."""
from course.grading.judging.checks.l04_termination import IN_PLACE as MISTAKE

GRADE_ID = "count_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the history is left unchanged",
]


def count_run(messages):
    final = messages.pop()  # the mistake: the caller's list is changed
    replies = [m for m in messages if m["role"] == "assistant"]
    turns = sum(1 for m in replies if any(b["type"] == "tool_use" for b in m["content"]))
    calls = len(replies) + 1 if final["role"] == "assistant" else len(replies)
    tool_calls = sum(1 for m in replies for b in m["content"] if b["type"] == "tool_use")
    return {"calls": calls, "turns": turns, "tool_calls": tool_calls, "steps": calls + turns}
