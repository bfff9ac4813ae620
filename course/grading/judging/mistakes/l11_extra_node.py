"""Adds a third call that asks the model to check its translation."""
from course.grading.judging.checks.l11_workflows_versus_agents import NODES as MISTAKE

GRADE_ID = "summarize_then_translate"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "exactly two calls, each a fresh conversation of one user message, no tools, the model given",
    "the translation is returned: the second call's text",
]


def summarize_then_translate(client, model, text):
    def ask(prompt):
        reply = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}])
        return "".join(b.text for b in reply.content if b.type == "text")

    french = ask("Translate this into French:\n" + ask("Summarise this in one sentence:\n" + text))
    checked = ask("Fix any mistakes in this French text, or repeat it:\n" + french)  # the mistake: a third node
    return checked or french
