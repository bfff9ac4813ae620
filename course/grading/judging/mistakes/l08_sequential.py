"""Runs the calls one after another."""
from course.grading.judging.checks.l08_parallel_tools import SEQUENTIAL as MISTAKE

GRADE_ID = "run_parallel"


def run_parallel(tool_uses, run_tool):
    results = []
    for u in tool_uses:
        try:
            results.append({"type": "tool_result", "tool_use_id": u["id"], "content": run_tool(u["name"], u["input"])})
        except Exception as e:
            results.append({"type": "tool_result", "tool_use_id": u["id"], "content": str(e), "is_error": True})
    return results
