"""Checks the deadline only before running tools, never before the first call."""
import time

from course.grading.judging.checks.l09_guards_and_observability import DEADLINE as MISTAKE

GRADE_ID = "guarded_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "before each call and before running tools: error_timeout once clock() - start >= timeout_s",
]


def guarded_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3, timeout_s=None, clock=time.monotonic):
    start = clock()
    messages = [{"role": "user", "content": prompt}]
    last, streak = None, 0  # the last call asked for, and how many times in a row
    warned = None  # the call just answered with a warning instead of running
    for turn in range(max_turns + 1):
        response = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        if response.stop_reason != "tool_use":
            text = "".join(block.text for block in response.content if block.type == "text")
            return ("success", text) if response.stop_reason in ("end_turn", "stop_sequence") else (response.stop_reason, None)
        uses = [block for block in response.content if block.type == "tool_use"]
        if warned is not None and [uses[0].name, uses[0].input] == warned:
            return "error_repeated_call", None  # warned, and the same call again: the model is stuck
        if timeout_s is not None and clock() - start >= timeout_s:  # the mistake
            return "error_timeout", None
        if turn == max_turns:
            return "error_max_turns", None
        warned, results = None, []
        for use in uses:
            streak = streak + 1 if [use.name, use.input] == last else 1
            last = [use.name, use.input]
            if streak >= max_repeats:  # not run: the model reads why, and may change course
                warned = last
                results.append({"type": "tool_result", "tool_use_id": use.id, "is_error": True,
                                "content": f"Repeated call: {use.name} with the same input {streak} times in a row. "
                                           "Its result is above; try something else."})
                continue
            try:
                results.append({"type": "tool_result", "tool_use_id": use.id, "content": run_tool(use.name, use.input)})
            except Exception as error:
                results.append({"type": "tool_result", "tool_use_id": use.id, "content": f"Error: {error}", "is_error": True})
        messages = messages + [{"role": "assistant", "content": response.content}, {"role": "user", "content": results}]
