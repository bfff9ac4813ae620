"""Puts the newest turn right after the prompt, so history runs newest first."""
from course.grading.judging.checks.l03_the_first_loop import REORDERS_HISTORY as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "tool_use: every tool_use run in order, all results in one user message, results first, each with its id",
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
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages[1:1] = [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]  # the mistake
