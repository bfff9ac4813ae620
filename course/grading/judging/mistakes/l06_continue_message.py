"""Sends a paused turn back with an extra "Please continue." user message."""
from course.grading.judging.checks.l06_other_stop_reasons import SEND_AS_IS as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "while the response is pause_turn, the assistant message is appended and the conversation sent again, nothing else added",
    "at most max_continuations continuations",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_continuations + 1):
        r = client.messages.create(model=model, max_tokens=1024, messages=messages)
        if r.stop_reason in ("end_turn", "stop_sequence"):
            return "".join(b.text for b in r.content if b.type == "text")
        if r.stop_reason != "pause_turn":
            return None
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": "Please continue."}]  # the mistake
    return None
