"""Reads only the tool name of a rule: `run_python(test_*.py)` refuses every run_python call."""
from course.grading.judging.checks.l05_errors_and_the_gate import NO_SPEC as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "it matches when one of the call's string arguments matches the glob spec as a whole, case-sensitively; other arguments are never compared",
]


def rule_matches(rule, name, input):
    return rule.split("(")[0] == name  # the mistake: the spec is never read
