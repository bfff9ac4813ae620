"""Runs the two nodes as one conversation: the second call resends the first exchange."""
from course.grading.judging.checks.l11_workflows_versus_agents import FRESH as MISTAKE

GRADE_ID = "summarize_then_translate"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "exactly two calls, each a fresh conversation of one user message, no tools, the model given",
]


def summarize_then_translate(client, model, text):
    messages = [{"role": "user", "content": f"Summarise this text in one sentence.\n\n{text}"}]
    r = client.messages.create(model=model, max_tokens=1024, messages=messages)
    summary = "".join(b.text for b in r.content if b.type == "text")
    messages += [{"role": "assistant", "content": r.content},
                 {"role": "user", "content": f"Translate this into French.\n\n{summary}"}]  # the mistake: not fresh
    r = client.messages.create(model=model, max_tokens=1024, messages=messages)
    return "".join(b.text for b in r.content if b.type == "text")
