"""Sends only the new question, as if the API remembered the first one."""
from course.grading.judging.checks.l02_a_model_is_a_function import STATELESS as MISTAKE

GRADE_ID = "follow_up"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the second request carries `first`, the first reply exactly as received, and `second`",
    "the return value is the text of the second answer",
]


def follow_up(client, model, first, second):
    client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": first}])
    reply = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": second}])  # the mistake
    return reply.content[0].text
