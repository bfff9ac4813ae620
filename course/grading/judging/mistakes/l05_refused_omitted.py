"""Leaves refused calls out of the answer instead of answering them with is_error."""
from course.grading.judging.checks.l05_errors_and_the_gate import REFUSED_OMITTED as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a refused call gets an is_error result saying why",
    "the other calls run with run_tool, each result carrying the tool's text",
    "an exception (an unknown tool, an invalid input, a failure) becomes an is_error result",
    "one result per call, in order",
]


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        if any(rule_matches(r, use["name"], use["input"]) for r in deny):
            continue  # the mistake: no result at all
        try:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])})
        except Exception as e:
            results.append({"type": "tool_result", "tool_use_id": use["id"], "content": str(e), "is_error": True})
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
