"""Makes both calls right but returns the summary instead of the translation."""
from course.grading.judging.checks.l11_workflows_versus_agents import RETURNS_SUMMARY as MISTAKE

GRADE_ID = "summarize_then_translate"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the translation is returned: the second call's text",
]


def summarize_then_translate(client, model, text):
    first = client.messages.create(model=model, max_tokens=1024,
                                   messages=[{"role": "user", "content": f"Summarise in one sentence:\n{text}"}])
    summary = first.content[0].text  # the mistake
    client.messages.create(model=model, max_tokens=1024,
                           messages=[{"role": "user", "content": f"Translate into French:\n{summary}"}])
    return summary  # the mistake: the translation is dropped
