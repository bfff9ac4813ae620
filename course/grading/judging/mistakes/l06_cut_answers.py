"""Returns the text of any reply that is not paused, a reply cut at max_tokens included."""
from course.grading.judging.checks.l06_other_stop_reasons import CUT_ANSWERS as MISTAKE

GRADE_ID = "finish_turn"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "otherwise None: a refusal, a reply cut at max_tokens, a turn still paused",
]


def finish_turn(client, model, prompt, *, max_continuations=3):
    messages = [{"role": "user", "content": prompt}]
    for _ in range(max_continuations + 1):
        r = client.messages.create(model=model, max_tokens=1024, messages=messages)
        if r.stop_reason in ("end_turn", "max_tokens"):  # the mistake: a cut reply is not an answer
            return "".join(b.text for b in r.content if b.type == "text")
        if r.stop_reason != "pause_turn":
            return None
        messages = messages + [{"role": "assistant", "content": r.content}]
    return None
