"""Calls run_tool without catching: a failing tool crashes the whole loop."""
from course.grading.judging.checks.l03_the_first_loop import TOOL_EXCEPTION as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a tool that raises becomes a result with is_error: true and the error as its content",
    "no answer returns the last request's messages (the ending response appended is accepted)",
    "each request is the previous one plus the reply exactly as received (thinking blocks included) and one user message",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text"), messages + [{"role": "assistant", "content": r.content}]
        if r.stop_reason != "tool_use" or turn == max_turns:
            return None, messages
        results = [{"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)}  # the mistake
                   for b in r.content if b.type == "tool_use"]
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
