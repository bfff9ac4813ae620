"""Goes live whenever the learner asks, key or no key."""
from course.grading.judging.checks.l13_the_real_api import NO_KEY as MISTAKE

GRADE_ID = "choose_backend"


def choose_backend(env):
    return "live" if env.get("COURSE_LIVE") == "1" else "local"  # the mistake: the key is never looked at
