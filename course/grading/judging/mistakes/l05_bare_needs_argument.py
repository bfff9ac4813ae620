"""Reads a bare rule as `Tool(*)`, so it matches only calls with a string argument."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import BARE_NEEDS_ARGUMENT as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a rule Tool matches every call of the tool named exactly Tool, whatever its arguments",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    pattern = spec[:-1] if spec else "*"  # the mistake: a bare rule needs no argument at all
    return tool == name and any(isinstance(v, str) and fnmatch.fnmatchcase(v, pattern) for v in input.values())
