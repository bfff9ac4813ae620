"""Leaves refused calls out of the answer instead of answering them with is_error."""
import fnmatch

from course.grading.checks.l05_errors_and_the_gate import REFUSED_OMITTED as MISTAKE
from course.grading.checks.l05_errors_and_the_gate import REFUSED_RUN

GRADE_ID = "answer_calls"
ALSO = (REFUSED_RUN,)  # matching the name against the whole rule, it never refuses delete_page(Aurora*)


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        if any(fnmatch.fnmatchcase(use["name"], r) for r in deny):
            continue  # the mistake: no result at all
        try:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as e:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": str(e), "is_error": True})
    return {"role": "user", "content": results}
