"""Calls a model of its own choosing instead of the one it is given."""
from course.grading.judging.checks.l11_workflows_versus_agents import OWN_MODEL as MISTAKE

GRADE_ID = "summarize_then_translate"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "exactly two calls, each a fresh conversation of one user message, no tools, the model given",
]


def summarize_then_translate(client, model, text):
    def ask(prompt):
        reply = client.messages.create(model="claude-haiku-5-5", max_tokens=1024,  # the mistake: `model` unused
                                       messages=[{"role": "user", "content": prompt}])
        return "".join(b.text for b in reply.content if b.type == "text")

    return ask("Translate this into French:\n" + ask("Summarise this in one sentence:\n" + text))
