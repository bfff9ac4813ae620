"""Counts the first call as a continuation: one continuation fewer than max_continuations."""
from course.grading.judging.checks.l06_other_stop_reasons import ONE_SHORT as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "while the response is pause_turn, the assistant message is appended and the conversation sent again, nothing else added",
    "at most max_continuations continuations",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max(max_continuations, 1)):  # the mistake: the first call is not a continuation
        r = client.messages.create(model=model, max_tokens=1024, messages=messages)
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text")
        if r.stop_reason != "pause_turn":
            return None
        messages = messages + [{"role": "assistant", "content": r.content}]
    return None
