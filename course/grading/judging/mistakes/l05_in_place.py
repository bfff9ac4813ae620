"""Turns each tool_use block into its tool_result in place, so the caller's tool_uses are results afterwards."""
from course.grading.judging.checks.l05_errors_and_the_gate import IN_PLACE as MISTAKE

GRADE_ID = "answer_calls"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "tool_uses and deny are left as they are",
]


def answer_calls(tool_uses, run_tool, deny):
    for use in tool_uses:
        name, input = use.pop("name"), use.pop("input")  # the mistake: the block is changed into its result
        use["type"], use["tool_use_id"] = "tool_result", use.pop("id")
        if any(rule_matches(r, name, input) for r in deny):
            use.update(content="Permission denied", is_error=True)
            continue
        try:
            use["content"] = run_tool(name, input)
        except Exception as error:
            use.update(content=f"Error: {error}", is_error=True)
    return {"role": "user", "content": [dict(use) for use in tool_uses]}


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    return tool == name and (not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1])
                                             for v in input.values()))
