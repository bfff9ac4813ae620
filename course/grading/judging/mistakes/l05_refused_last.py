"""Answers the calls it runs first and the refused ones after them."""
from course.grading.judging.checks.l05_errors_and_the_gate import REFUSED_LAST as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a refused call gets an is_error result saying why",
    "one result per call, in order",
]


def answer_calls(tool_uses, run_tool, deny):
    ran, refused = [], []
    for use in tool_uses:
        if any(rule_matches(r, use["name"], use["input"]) for r in deny):
            refused.append({"type": "tool_result", "tool_use_id": use["id"], "content": "Permission denied",
                            "is_error": True})
            continue
        try:
            ran.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as error:
            ran.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}", "is_error": True})
    return {"role": "user", "content": ran + refused}  # the mistake: not the order asked


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
