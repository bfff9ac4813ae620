"""Ends as soon as the response starts with text, as if text meant a final answer."""
from course.grading.judging.checks.l03_the_first_loop import TEXT_LOOKS_FINAL as MISTAKE

GRADE_ID = "agent_loop"


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        if r.content[0].type == "text":  # the mistake: text first does not mean finished
            return r.content[0].text, messages + [{"role": "assistant", "content": r.content}]
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
