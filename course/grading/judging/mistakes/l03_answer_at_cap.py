"""At every exit but end_turn (the cap, a cut, a refusal) returns the text it saw, or a placeholder, as the answer."""
from course.grading.judging.checks.l03_the_first_loop import ANSWER_WITHOUT_END_TURN as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "decide from stop_reason, never from how the text looks",
    "max_tokens: no answer, no tools run, no further call",
    "pause_turn: the reply is appended as received and sent again with nothing added, as a turn (ending the run there, as at max_tokens, is accepted too)",
    "any other stop reason (a refusal) is treated as max_tokens",
    "when the response after the last allowed turn still asks for tools, they are not run and there is no answer",
    "no answer returns the last request's messages (the ending response appended is accepted)",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        text = "".join(b.text for b in r.content if b.type == "text")
        if r.stop_reason == "end_turn":
            return text, messages + [{"role": "assistant", "content": r.content}]
        if r.stop_reason != "tool_use" or turn == max_turns:
            return text or "(no answer)", messages  # the mistake: an unfinished run still returns an answer
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
