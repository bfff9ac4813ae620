"""Lowers the case of the spec and of the arguments before matching."""
import fnmatch

from course.grading.judging.checks.l05_errors_and_the_gate import CASE as MISTAKE

GRADE_ID = "rule_matches"


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    if not spec:
        return True
    pattern = spec[:-1].lower()  # the mistake: /ETC/passwd is not /etc/passwd
    return any(isinstance(v, str) and fnmatch.fnmatchcase(v.lower(), pattern) for v in input.values())
