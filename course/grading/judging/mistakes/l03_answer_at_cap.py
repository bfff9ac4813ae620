"""At every exit but end_turn (the cap, a cut, a refusal) returns the text it saw, or a placeholder, as the answer."""
from course.grading.judging.checks.l03_the_first_loop import ANSWER_WITHOUT_END_TURN as MISTAKE

GRADE_ID = "agent_loop"


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
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
