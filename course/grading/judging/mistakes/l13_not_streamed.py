"""Waits for the whole reply with messages.create and prints it at the end."""
from course.grading.judging.checks.l13_the_real_api import NOT_STREAMED as MISTAKE

GRADE_ID = "stream_reply"


def stream_reply(client, model, prompt):
    reply = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}])
    print(reply.content[0].text)
    return reply.content[0].text
