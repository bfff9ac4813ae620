"""Takes the key out of the mapping so that nothing can print it later."""
from course.grading.judging.checks.l13_the_real_api import KEY_REMOVED as MISTAKE

GRADE_ID = "choose_backend"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "live when COURSE_LIVE is \"1\" and ANTHROPIC_API_KEY is set and not empty",
    "local without the opt-in: COURSE_LIVE missing or any other value",
    "local without a key: ANTHROPIC_API_KEY missing or empty",
]


def choose_backend(env):
    key = env.pop("ANTHROPIC_API_KEY", "")  # the mistake: env is changed
    return "live" if env.get("COURSE_LIVE") == "1" and key else "local"
