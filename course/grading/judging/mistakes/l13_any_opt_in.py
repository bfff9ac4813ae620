"""Opts in whenever COURSE_LIVE is set to something non-empty, "0" included."""
from course.grading.judging.checks.l13_the_real_api import ANY_OPT_IN as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "local without the opt-in: COURSE_LIVE missing or any other value",
]


def choose_backend(env):
    if env.get("COURSE_LIVE") and env.get("ANTHROPIC_API_KEY"):  # the mistake: only "1" opts in
        return "live"
    return "local"
