"""Goes live whenever a key is set, whether or not the learner asked."""
from course.grading.judging.checks.l13_the_real_api import NOT_ASKED as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "local without the opt-in: COURSE_LIVE missing or any other value",
]


def choose_backend(env):
    return "live" if env.get("ANTHROPIC_API_KEY") else "local"  # the mistake
