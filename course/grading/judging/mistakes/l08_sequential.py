"""Runs the calls one after another."""
from course.grading.judging.checks.l08_parallel_tools import SEQUENTIAL as MISTAKE

GRADE_ID = "run_parallel"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "all the calls run at the same time",
    "one tool_result per call, in the order of the tool_uses, whatever order they finish in",
    "a failing call becomes its own is_error result",
]


def run_parallel(tool_uses, run_tool):
    results = []
    for u in tool_uses:  # the mistake
        try:
            results.append({"type": "tool_result", "tool_use_id": u["id"], "content": run_tool(u["name"], u["input"])})  # the mistake
        except Exception as e:
            results.append({"type": "tool_result", "tool_use_id": u["id"], "content": str(e), "is_error": True})
    return results
