"""Asks whether the key is in the environment, so an empty ANTHROPIC_API_KEY counts as a key."""
from course.grading.judging.checks.l13_the_real_api import EMPTY_KEY as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "local without a key: ANTHROPIC_API_KEY missing or empty",
]


def choose_backend(env):
    if env.get("COURSE_LIVE") == "1" and "ANTHROPIC_API_KEY" in env:  # the mistake: "" is no key
        return "live"
    return "local"
