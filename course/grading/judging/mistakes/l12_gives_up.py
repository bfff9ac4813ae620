"""Gives up at the first failed send instead of starting the batch again."""
from course.grading.judging.checks.l12_three_loops import GIVES_UP as MISTAKE

GRADE_ID = "send_notices"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one send_email per recipient, in order; when a send raises, the whole batch starts again, up to attempts times",
    "the attempt that finished (1-based), or None",
]


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    try:
        for to in recipients:
            run_tool("send_email", {"to": to, "subject": subject, "body": body, "idempotency_key": f"{subject}:{to}"})
        return 1  # the mistake
    except Exception:
        return None  # the mistake: no second attempt
