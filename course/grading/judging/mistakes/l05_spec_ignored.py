"""Reads only the tool name of a rule: `run_python(test_*.py)` refuses every run_python call."""
from course.grading.judging.checks.l05_errors_and_the_gate import NO_SPEC as MISTAKE

GRADE_ID = "rule_matches"


def rule_matches(rule, name, input):
    return rule.split("(")[0] == name  # the mistake: the spec is never read
