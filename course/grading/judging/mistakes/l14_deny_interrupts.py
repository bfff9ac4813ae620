"""Refuses a call and interrupts the whole run."""
from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

from course.grading.judging.checks.l14_the_agent_sdk import INTERRUPT as MISTAKE
from course.grading.judging.mistakes.l14_last_rule import rule_matches

GRADE_ID = "decide"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call a rule of deny matches gets PermissionResultDeny, its message \"Permission denied by rule R\"",
    "R is the first rule of deny that matches",
]


def decide(tool_name, tool_input, deny):
    for rule in deny:
        if rule_matches(rule, tool_name, tool_input):
            return PermissionResultDeny(message=f"Permission denied by rule {rule}", interrupt=True)  # the mistake
    return PermissionResultAllow()
