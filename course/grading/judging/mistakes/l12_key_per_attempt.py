"""Uses a key that includes the attempt number, so a retry looks like a new e-mail."""
from course.grading.judging.checks.l12_three_loops import UNSTABLE_KEY as MISTAKE

GRADE_ID = "send_notices"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "keys that stay the same for the same e-mail: nobody gets the notice twice, everyone once when an attempt finishes",
]


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    for attempt in range(1, attempts + 1):
        try:
            for to in recipients:
                run_tool("send_email", {"to": to, "subject": subject, "body": body,
                                        "idempotency_key": f"{subject}:{to}:{attempt}"})  # the mistake
            return attempt
        except Exception:
            pass
    return None
