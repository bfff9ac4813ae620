"""Reads the spec as a prefix ending in `*`: `/etc/*` works, `*.py` and `/etc/passwd` do not."""
from course.grading.judging.checks.l05_errors_and_the_gate import PREFIX_SPEC as MISTAKE

GRADE_ID = "rule_matches"


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    if not spec:
        return True
    prefix = spec[:-1].rstrip("*")  # the mistake: not a glob
    return any(isinstance(v, str) and v.startswith(prefix) for v in input.values())
