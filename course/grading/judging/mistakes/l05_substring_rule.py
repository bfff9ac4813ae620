"""Matches the spec as a substring of the arguments, without its glob meaning."""
from course.grading.judging.checks.l05_errors_and_the_gate import SUBSTRING as MISTAKE

GRADE_ID = "rule_matches"


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    return not spec or any(spec.rstrip(")").strip("*") in str(v) for v in input.values())
