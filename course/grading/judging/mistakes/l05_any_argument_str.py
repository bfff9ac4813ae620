"""Matches the spec against every argument turned into a string, numbers included."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import NOT_STRING as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "it matches when one of the call's string arguments matches the glob spec as a whole, case-sensitively; other arguments are never compared",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    return not spec or any(fnmatch.fnmatchcase(str(v), spec[:-1]) for v in input.values())  # the mistake: str(10)
