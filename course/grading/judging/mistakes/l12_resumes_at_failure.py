"""Retries only from the send that failed instead of starting the whole batch again."""
from course.grading.judging.checks.l12_three_loops import RESUMES as MISTAKE

GRADE_ID = "send_notices"


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    done = 0
    for attempt in range(1, attempts + 1):
        try:
            for to in recipients[done:]:  # the mistake: the batch is not started again
                run_tool("send_email", {"to": to, "subject": subject, "body": body, "idempotency_key": f"{subject}:{to}"})
                done += 1
            return attempt
        except Exception:
            continue
    return None
