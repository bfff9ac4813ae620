"""Continues a paused turn by resending only the first user message: the paused reply is lost."""
from course.grading.judging.checks.l06_other_stop_reasons import DROPS_PAUSED as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "while the response is pause_turn, the assistant message is appended and the conversation sent again, nothing else added",
    "at most max_continuations continuations",
    "the text of the end_turn response that ends the turn is returned",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    first = [{"role": "user", "content": prompt}]
    for _ in range(max_continuations + 1):
        r = client.messages.create(model=model, max_tokens=1024, messages=first)  # the mistake: h.a never sent
        if r.stop_reason in ("end_turn", "stop_sequence"):
            return "".join(b.text for b in r.content if b.type == "text")
        if r.stop_reason != "pause_turn":
            return None
    return None
