"""Prints the key to show which one is used."""
from course.grading.judging.checks.l13_the_real_api import LEAK as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the key is never printed",
]


def choose_backend(env):
    print("using key", env.get("ANTHROPIC_API_KEY"))  # the mistake
    return "live" if env.get("COURSE_LIVE") == "1" and env.get("ANTHROPIC_API_KEY") else "local"
