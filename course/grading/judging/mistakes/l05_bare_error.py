"""Answers a failed call with the bare text "Error", so the model cannot read what went wrong."""
from course.grading.judging.checks.l05_errors_and_the_gate import NO_ERROR_TEXT as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the is_error result of an exception carries the error",
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
        except Exception:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": "Error", "is_error": True})  # the mistake
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
