"""Returns the text of a paused turn as if it were the answer."""
from course.grading.judging.checks.l06_other_stop_reasons import PAUSE_FINAL as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "while the response is pause_turn, the assistant message is appended and the conversation sent again, nothing else added",
    "at most max_continuations continuations",
    "the text of the end_turn response that ends the turn is returned",
    "otherwise None: a refusal, a reply cut at max_tokens, a turn still paused",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    r = client.messages.create(model=model, max_tokens=1024, messages=[{"role": "user", "content": prompt}])
    if r.stop_reason in ("end_turn", "stop_sequence", "pause_turn"):  # the mistake
        return "".join(b.text for b in r.content if b.type == "text")
    return None
