"""Matches the spec against the arguments of any tool."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import TOOL_IGNORED as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a rule Tool(spec) matches calls of the tool Tool only",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if not spec:
        return tool == name
    pattern = spec[:-1]
    return any(isinstance(v, str) and fnmatch.fnmatchcase(v, pattern) for v in input.values())  # the mistake: any tool
