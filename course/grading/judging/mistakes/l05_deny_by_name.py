"""Matches a deny rule on the tool name only, so delete_page(Aurora*) refuses every delete_page."""
from course.grading.judging.checks.l05_errors_and_the_gate import NAME_ONLY as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call matching a rule of deny is not run",
    "a refused call gets an is_error result saying why",
    "the other calls run with run_tool, each result carrying the tool's text",
    "an exception (an unknown tool, an invalid input, a failure) becomes an is_error result",
    "the is_error result of an exception carries the error",
    "one result per call, in order",
]


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        if any(rule_matches(r, use["name"], use["input"]) for r in deny):
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": "Refused by the gate.",
                            "is_error": True})
            continue
        try:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as error:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}", "is_error": True})
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    return tool == name  # the mistake: the spec is never read
