"""Runs every call first, then replaces the result of a refused one with the refusal."""
from course.grading.judging.checks.l05_errors_and_the_gate import REFUSED_RUN as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call matching a rule of deny is not run",
    "a refused call gets an is_error result saying why",
    "the other calls run with run_tool, each result carrying the tool's text",
    "an exception (an unknown tool, an invalid input, a failure) becomes an is_error result",
    "one result per call, in order",
]


def answer_calls(tool_uses, run_tool, deny):
    results = []
    for use in tool_uses:
        try:
            result = {"type": "tool_result", "tool_use_id": use["id"], "content": run_tool(use["name"], use["input"])}
        except Exception as error:
            result = {"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}", "is_error": True}
        if any(rule_matches(r, use["name"], use["input"]) for r in deny):  # the mistake: it already ran
            result = {"type": "tool_result", "tool_use_id": use["id"], "content": "Permission denied", "is_error": True}
        results.append(result)
    return {"role": "user", "content": results}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
