"""Runs the calls at the same time and sorts the results by id, in reverse."""
from concurrent.futures import ThreadPoolExecutor

from course.grading.judging.checks.l08_parallel_tools import REVERSED as MISTAKE

GRADE_ID = "run_parallel"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one tool_result per call, in the order of the tool_uses, whatever order they finish in",
]


def run_parallel(tool_uses, run_tool):
    def one(u):
        try:
            return {"type": "tool_result", "tool_use_id": u["id"], "content": run_tool(u["name"], u["input"])}
        except Exception as e:
            return {"type": "tool_result", "tool_use_id": u["id"], "content": str(e), "is_error": True}

    with ThreadPoolExecutor(max_workers=len(tool_uses) or 1) as pool:
        results = list(pool.map(one, tool_uses))
    return sorted(results, key=lambda r: r["tool_use_id"], reverse=True)  # the mistake: newest first
