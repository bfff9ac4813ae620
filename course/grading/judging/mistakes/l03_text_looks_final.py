"""Ends as soon as the response starts with text, as if text meant a final answer."""
from course.grading.judging.checks.l03_the_first_loop import TEXT_LOOKS_FINAL as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "end_turn: the answer is the response's text",
    "decide from stop_reason, never from how the text looks",
    "tool_use: every tool_use run in order, all results in one user message, results first, each with its id",
    "max_tokens: no answer, no tools run, no further call",
    "pause_turn: the reply is appended as received and sent again with nothing added, as a turn (ending the run there, as at max_tokens, is accepted too)",
    "any other stop reason (a refusal) is treated as max_tokens",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        if r.content[0].type == "text":  # the mistake: text first does not mean finished
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
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
