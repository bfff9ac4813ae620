"""Takes the calls off the caller's list one by one, so the response it answers loses its tool_use blocks."""
from course.i18n import deferred

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "tool_uses and deny are left as they are",
]
MISTAKE = deferred("taking the calls off tool_uses with pop(): the caller's list is left empty; loop over it and "
                   "leave it as it is")


def answer_calls(tool_uses, run_tool, deny):
    results = []
    while tool_uses:
        use = tool_uses.pop(0)  # the mistake: the caller's list is emptied
        rule = next((r for r in deny if rule_matches(r, use["name"], use["input"])), None)
        if rule is not None:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Denied by {rule}",
                            "is_error": True})
            continue
        try:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as error:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}", "is_error": True})
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    return not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1]) for v in input.values())
