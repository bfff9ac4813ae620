"""Matches the spec as a substring of the arguments, without its glob meaning."""
from course.grading.judging.checks.l05_errors_and_the_gate import SUBSTRING as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a rule Tool(spec) matches calls of the tool Tool only",
    "it matches when one of the call's string arguments matches the glob spec as a whole, case-sensitively; other arguments are never compared",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    return not spec or any(spec.rstrip(")").strip("*") in str(v) for v in input.values())  # the mistake
