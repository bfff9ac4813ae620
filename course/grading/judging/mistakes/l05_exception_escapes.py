"""Refuses correctly but lets a tool's exception escape."""
from course.grading.judging.checks.l05_errors_and_the_gate import EXCEPTION as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "an exception (an unknown tool, an invalid input, a failure) becomes an is_error result",
    "the is_error result of an exception carries the error",
    "one result per call, in order",
    "tool_uses and deny are left as they are",
]


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        if any(rule_matches(r, use["name"], use["input"]) for r in deny):
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": "Permission denied",
                            "is_error": True})
        else:  # the mistake: no try, so a failing call ends the whole answer
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})  # the mistake
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
