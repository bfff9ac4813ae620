"""Lowers the case of the spec and of the arguments before matching."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import CASE as MISTAKE

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
    pattern = spec[:-1].lower()  # the mistake: /ETC/passwd is not /etc/passwd
    return any(isinstance(v, str) and fnmatch.fnmatchcase(v.lower(), pattern) for v in input.values())
