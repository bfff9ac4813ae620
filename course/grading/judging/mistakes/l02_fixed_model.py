"""Asks the model it knows, claude-haiku-5-5, whatever `model` says."""
from course.grading.judging.checks.l02_a_model_is_a_function import FIXED_MODEL as MISTAKE

GRADE_ID = "follow_up"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "every request goes to the model given",
]


def follow_up(client, model, first, second):
    messages = [{"role": "user", "content": first}]
    reply = client.messages.create(model="claude-haiku-5-5", max_tokens=1024, messages=messages)  # the mistake
    messages += [{"role": "assistant", "content": reply.content}, {"role": "user", "content": second}]
    reply = client.messages.create(model="claude-haiku-5-5", max_tokens=1024, messages=messages)
    return "".join(block.text for block in reply.content if block.type == "text")
