"""Refuses the right calls, but names the last rule that matches."""
from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

from course.grading.judging.checks.l14_the_agent_sdk import LAST_RULE as MISTAKE

GRADE_ID = "decide"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call a rule of deny matches gets PermissionResultDeny, its message \"Permission denied by rule R\"",
    "R is the first rule of deny that matches",
]


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    if not spec:
        return True
    return any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec.removesuffix(")")) for v in input.values())


def decide(tool_name, tool_input, deny):
    matched = [rule for rule in deny if rule_matches(rule, tool_name, tool_input)]
    if matched:
        return PermissionResultDeny(message=f"Permission denied by rule {matched[-1]}")  # the mistake: the first
    return PermissionResultAllow()
