"""Goes live whenever the learner asks, key or no key."""
from course.grading.judging.checks.l13_the_real_api import NO_KEY as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "local without a key: ANTHROPIC_API_KEY missing or empty",
]


def choose_backend(env):
    return "live" if env.get("COURSE_LIVE") == "1" else "local"  # the mistake: the key is never looked at
