"""Retries the whole batch without idempotency keys, so the e-mails that went out are sent again."""
from course.grading.judging.checks.l12_three_loops import NO_KEY as MISTAKE

GRADE_ID = "send_notices"


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    for attempt in range(1, attempts + 1):
        try:
            for to in recipients:
                run_tool("send_email", {"to": to, "subject": subject, "body": body})
            return attempt
        except Exception:
            pass
    return None
