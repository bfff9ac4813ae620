"""Runs the tool blocks it finds, then looks at stop_reason."""
from course.grading.judging.checks.l03_the_first_loop import TOOLS_BEFORE_STOP_REASON as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "max_tokens: no answer, no tools run, no further call",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        results = []
        for b in r.content:  # the mistake: tools run before stop_reason is read
            if b.type == "tool_use" and turn < max_turns:  # the mistake
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text"), messages + [{"role": "assistant", "content": r.content}]
        if r.stop_reason != "tool_use" or turn == max_turns:
            return None, messages
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
