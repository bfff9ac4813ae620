"""Compares the spec with the arguments as plain text, so a glob matches only itself."""
from course.grading.judging.checks.l05_errors_and_the_gate import LITERAL as MISTAKE

GRADE_ID = "rule_matches"


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    return not spec or spec[:-1] in [v for v in input.values() if isinstance(v, str)]  # the mistake: no glob
