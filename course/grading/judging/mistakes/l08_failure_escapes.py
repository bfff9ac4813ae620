"""Runs the calls at the same time but lets a failing call's exception escape from the pool."""
from concurrent.futures import ThreadPoolExecutor

from course.grading.judging.checks.l08_parallel_tools import FAILURE_ESCAPES as MISTAKE

GRADE_ID = "run_parallel"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one tool_result per call, in the order of the tool_uses, whatever order they finish in",  # none, when one raises
    "a failing call becomes its own is_error result",
]


def run_parallel(tool_uses, run_tool):
    def one(u):  # the mistake: no try, so pool.map re-raises the first failure
        return {"type": "tool_result", "tool_use_id": u["id"], "content": run_tool(u["name"], u["input"])}  # the mistake

    with ThreadPoolExecutor(max_workers=len(tool_uses) or 1) as pool:
        return list(pool.map(one, tool_uses))
