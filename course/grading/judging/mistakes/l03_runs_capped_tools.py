"""Runs the tools of every tool_use response, then checks the cap: the capped response's tools run too."""
from course.grading.judging.checks.l03_the_first_loop import RAN_LAST_TOOLS as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "when the response after the last allowed turn still asks for tools, they are not run and there is no answer",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text"), messages + [
                {"role": "assistant", "content": r.content}]
        if r.stop_reason != "tool_use":
            return None, messages
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        if turn == max_turns:  # the mistake: the capped response's tools already ran
            return None, messages
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
