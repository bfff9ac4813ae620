"""Continues a paused turn for as long as it stays paused, ignoring max_continuations."""
from course.grading.judging.checks.l06_other_stop_reasons import NO_LIMIT as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "at most max_continuations continuations",
    "otherwise None: a refusal, a reply cut at max_tokens, a turn still paused",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    messages = [{"role": "user", "content": prompt}]
    while True:  # the mistake: no limit
        r = client.messages.create(model=model, max_tokens=1024, messages=messages)
        if r.stop_reason != "pause_turn":
            break
        messages = messages + [{"role": "assistant", "content": r.content}]
    if r.stop_reason == "end_turn":
        return "".join(b.text for b in r.content if b.type == "text")
    return None
