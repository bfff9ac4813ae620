"""Reads the spec as a prefix ending in `*`: `/etc/*` works, `*.py` and `/etc/passwd` do not."""
from course.grading.judging.checks.l05_errors_and_the_gate import PREFIX_SPEC as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a rule Tool(spec) matches calls of the tool Tool only",
    "it matches when one of the call's string arguments matches the glob spec as a whole, case-sensitively; other arguments are never compared",
]


def rule_matches(rule, name, input):
    tool, _, spec = rule.partition("(")
    if tool != name:
        return False
    if not spec:
        return True
    prefix = spec[:-1].rstrip("*")  # the mistake: not a glob
    return any(isinstance(v, str) and v.startswith(prefix) for v in input.values())
