"""Matches the spec against the call's first argument only."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import FIRST_ONLY as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "it matches when one of the call's string arguments matches the glob spec as a whole, case-sensitively; other arguments are never compared",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    if not spec:
        return True
    first = next(iter(input.values()), None)  # the mistake: the other arguments are never looked at
    return isinstance(first, str) and fnmatch.fnmatchcase(first, spec[:-1])
