"""Reads the process's environment instead of the mapping it is given."""
import os

from course.grading.judging.checks.l13_the_real_api import OS_ENVIRON as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "live when COURSE_LIVE is \"1\" and ANTHROPIC_API_KEY is set and not empty",
]


def choose_backend(env):
    env = os.environ  # the mistake: the argument is ignored
    return "live" if env.get("COURSE_LIVE") == "1" and env.get("ANTHROPIC_API_KEY") else "local"
