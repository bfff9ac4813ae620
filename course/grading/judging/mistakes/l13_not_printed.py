"""Streams the reply but prints nothing until it is complete... and then not at all."""
from course.grading.judging.checks.l13_the_real_api import NOT_PRINTED as MISTAKE

GRADE_ID = "stream_reply"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "each piece of text is printed as it arrives",
]


def stream_reply(client, model, prompt):
    with client.messages.stream(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}]) as stream:
        return "".join(stream.text_stream)  # the mistake: the pieces are never shown
