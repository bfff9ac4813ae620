"""Retries only from the send that failed instead of starting the whole batch again."""
from course.grading.judging.checks.l12_three_loops import RESUMES as MISTAKE

GRADE_ID = "send_notices"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one send_email per recipient, in order; when a send raises, the whole batch starts again, up to attempts times",
    "the attempt that finished (1-based), or None",
]


def send_notices(run_tool, recipients, subject, body, *, attempts=3):
    done = 0
    for attempt in range(1, attempts + 1):
        try:
            for to in recipients[done:]:  # the mistake: the batch is not started again
                run_tool("send_email", {"to": to, "subject": subject, "body": body, "idempotency_key": f"{subject}:{to}"})
                done += 1  # the mistake
            return attempt
        except Exception:
            continue
    return None
