"""`if stop_reason != "tool_use": return the text`: a reply cut at max_tokens, refused or paused becomes the answer."""
from course.grading.judging.checks.l03_the_first_loop import STOP_NOT_TOOL_USE_IS_ANSWER as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "decide from stop_reason, never from how the text looks",
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
        if r.stop_reason != "tool_use":  # the mistake: max_tokens and refusal count as success
            text = "".join(b.text for b in r.content if b.type == "text")
            return text, messages + [{"role": "assistant", "content": r.content}]
        if turn == max_turns:
            return None, messages
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
