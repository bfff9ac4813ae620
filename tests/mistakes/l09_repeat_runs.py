"""Detects the repeat only after running the tools of the response that repeats."""
import time

from course.grading.checks.l09_guards_and_observability import REPEAT_RUN as MISTAKE

GRADE_ID = "guarded_loop"


def guarded_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3, timeout_s=None, clock=time.monotonic):
    start = clock()
    messages = [{"role": "user", "content": prompt}]
    last, streak = None, 0
    for turn in range(max_turns + 1):
        if timeout_s is not None and clock() - start >= timeout_s:
            return "error_timeout", None
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        if r.stop_reason != "tool_use":
            return "success", "".join(b.text for b in r.content if b.type == "text")
        if turn == max_turns:
            return "error_max_turns", None
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
                streak = streak + 1 if (b.name, b.input) == last else 1
                last = (b.name, b.input)
        if streak >= max_repeats:  # the mistake: the repeated call already ran
            return "error_repeated_call", None
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
