"""Streams the reply, but prints the text only once the stream is complete."""
from course.grading.judging.checks.l13_the_real_api import PRINTED_AT_END as MISTAKE

GRADE_ID = "stream_reply"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "each piece of text is printed as it arrives",
]


def stream_reply(client, model, prompt):
    with client.messages.stream(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}]) as stream:
        text = "".join(stream.text_stream)
    print(text)  # the mistake: nothing is shown while it arrives
    return text
