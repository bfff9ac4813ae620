"""Keeps the conversation right but returns `reply.content[0].text`: the first block, whatever it is."""
from course.grading.judging.checks.l02_a_model_is_a_function import FIRST_BLOCK as MISTAKE

GRADE_ID = "follow_up"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the return value is the text of the second answer",
]


def follow_up(client, model, first, second):
    messages = [{"role": "user", "content": first}]
    reply = client.messages.create(model=model, max_tokens=1024, messages=messages)
    messages += [{"role": "assistant", "content": reply.content}, {"role": "user", "content": second}]
    reply = client.messages.create(model=model, max_tokens=1024, messages=messages)
    return reply.content[0].text  # the mistake: one block, and perhaps not a text block
