"""Answers with the message's id instead of each tool_use's id."""
from course.grading.judging.checks.l03_the_first_loop import WRONG_IDS as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "every request sends the model, the tools and the max_tokens given",
    "end_turn: the answer is the response's text",
    "decide from stop_reason, never from how the text looks",
    "tool_use: every tool_use run in order, all results in one user message, results first, each with its id",
    "a tool that raises becomes a result with is_error: true and the error as its content",
    "max_tokens: no answer, no tools run, no further call",
    "pause_turn: the reply is appended as received and sent again with nothing added, as a turn (ending the run there, as at max_tokens, is accepted too)",
    "any other stop reason (a refusal) is treated as max_tokens",
    "at most max_turns + 1 model calls (with max_turns=0, one call)",
    "when the response after the last allowed turn still asks for tools, they are not run and there is no answer",
    "an answer returns the last request's messages plus the final assistant message",
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
        results = []
        for i, b in enumerate(r.content):
            if b.type == "tool_use":
                try:
                    out, err = run_tool(b.name, b.input), False
                except Exception as e:
                    out, err = str(e), True
                results.append({"type": "tool_result", "tool_use_id": f"{r.id}_{i}", "content": out, "is_error": err})  # the mistake
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
