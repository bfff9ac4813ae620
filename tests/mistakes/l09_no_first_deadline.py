"""Checks the deadline only before running tools, never before the first call."""
from course.grading.checks.l09_guards_and_observability import DEADLINE as MISTAKE

GRADE_ID = "guarded_loop"


def guarded_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3, timeout_s=None, clock=None):
    import time

    clock = clock or time.monotonic
    start = clock()
    messages, history = [{"role": "user", "content": prompt}], []
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)  # the mistake: no check first
        if r.stop_reason != "tool_use":
            return "success", "".join(b.text for b in r.content if b.type == "text")
        uses = [b for b in r.content if b.type == "tool_use"]
        history += [[u.name, u.input] for u in uses]
        streak = 0
        for i, (name, input) in enumerate(history):
            streak = streak + 1 if i and history[i - 1] == [name, input] else 1
        if streak >= max_repeats:
            return "error_repeated_call", None
        if timeout_s is not None and clock() - start >= timeout_s:
            return "error_timeout", None
        if turn == max_turns:
            return "error_max_turns", None
        results = [{"type": "tool_result", "tool_use_id": u.id, "content": run_tool(u.name, u.input)} for u in uses]
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
