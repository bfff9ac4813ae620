"""Waits for the whole reply with messages.create and prints it at the end."""
from course.grading.judging.checks.l13_the_real_api import NOT_STREAMED as MISTAKE

GRADE_ID = "stream_reply"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "one streamed request: the prompt, max_tokens=1024",
    "each piece of text is printed as it arrives",
    "the whole text is returned",
]


def stream_reply(client, model, prompt):
    reply = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}])  # the mistake
    print(reply.content[0].text)
    return reply.content[0].text
