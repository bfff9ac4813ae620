"""Refuses correctly but lets a tool's exception escape."""
from course.grading.checks.l05_errors_and_the_gate import EXCEPTION as MISTAKE

GRADE_ID = "answer_calls"


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        refused = any(r == use["name"] or r.startswith(use["name"] + "(") and use["input"].get("title", "").startswith("Aurora")
                      for r in deny)
        content = "Permission denied" if refused else run_tool(use["name"], use["input"])  # the mistake: no try
        results.append({"type": "tool_result", "tool_use_id": use["id"], "content": content, "is_error": refused})
    return {"role": "user", "content": results}
