"""Matches a bare rule as a prefix of the tool name, so `search` also refuses `search_web`."""
from course.grading.judging.checks.l05_errors_and_the_gate import TOOL_PREFIX as MISTAKE

GRADE_ID = "rule_matches"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a rule Tool matches every call of the tool named exactly Tool, whatever its arguments",
    "a rule Tool(spec) matches calls of the tool Tool only",
]


def rule_matches(rule, name, input):
    import fnmatch

    tool, _, spec = rule.partition("(")
    if not name.startswith(tool):  # the mistake: a prefix, not the whole name
        return False
    return not spec or any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec[:-1]) for v in input.values())
