"""Takes the key out of the mapping so that nothing can print it later."""
from course.grading.judging.checks.l13_the_real_api import KEY_REMOVED as MISTAKE

GRADE_ID = "choose_backend"


def choose_backend(env):
    key = env.pop("ANTHROPIC_API_KEY", "")  # the mistake: env is changed
    return "live" if env.get("COURSE_LIVE") == "1" and key else "local"
