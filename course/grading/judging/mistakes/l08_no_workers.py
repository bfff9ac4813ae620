"""Sizes the pool by the number of calls, so no tool_uses means a pool of 0 workers."""
from concurrent.futures import ThreadPoolExecutor

from course.grading.judging.checks.l08_parallel_tools import NO_WORKERS as MISTAKE

GRADE_ID = "run_parallel"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "no tool_uses: an empty list",
]


def run_parallel(tool_uses, run_tool):
    def one(u):
        try:
            return {"type": "tool_result", "tool_use_id": u["id"], "content": run_tool(u["name"], u["input"])}
        except Exception as e:
            return {"type": "tool_result", "tool_use_id": u["id"], "content": str(e), "is_error": True}

    with ThreadPoolExecutor(max_workers=len(tool_uses)) as pool:  # the mistake: 0 workers raises ValueError
        return list(pool.map(one, tool_uses))
