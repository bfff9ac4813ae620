"""Runs both nodes on the original text, so the translation ignores the summary."""
from course.grading.judging.checks.l11_workflows_versus_agents import CHAIN as MISTAKE

GRADE_ID = "summarize_then_translate"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the second call asks for a French translation of the summary: its message carries the first call's output",
]


def summarize_then_translate(client, model, text):
    client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": "Summarise: " + text}])
    reply = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": "Translate: " + text}])  # the mistake
    return "".join(b.text for b in reply.content if b.type == "text")
