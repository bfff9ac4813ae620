"""`if stop_reason != "tool_use": return the text`: a reply cut at max_tokens, refused or paused becomes the answer."""
from course.grading.judging.checks.l03_the_first_loop import STOP_NOT_TOOL_USE_IS_ANSWER as MISTAKE

GRADE_ID = "agent_loop"


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
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
