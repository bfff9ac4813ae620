"""Answers a failed call with the error's text, but without is_error."""
from course.i18n import deferred

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "an exception (an unknown tool, an invalid input, a failure) becomes an is_error result",
    "one result per call, in order",
]
MISTAKE = deferred("answering an exception without is_error: true: the model must see that the call failed, not "
                   "read the error as the tool's answer")


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        rule = next((r for r in deny if rule_matches(r, use["name"], use["input"])), None)
        if rule is not None:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Permission denied by rule {rule}",
                            "is_error": True})
            continue
        try:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as error:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}"})  # the mistake
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
