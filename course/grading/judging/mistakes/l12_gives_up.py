"""Gives up at the first failed send instead of starting the batch again."""
from course.grading.judging.checks.l12_three_loops import GIVES_UP as MISTAKE

GRADE_ID = "send_notices"


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    try:
        for to in recipients:
            run_tool("send_email", {"to": to, "subject": subject, "body": body, "idempotency_key": f"{subject}:{to}"})
        return 1
    except Exception:
        return None  # the mistake: no second attempt
