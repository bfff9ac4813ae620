"""Loops until the model stops asking for tools: max_turns is ignored."""
from course.grading.judging.checks.l03_the_first_loop import NO_CAP as MISTAKE

GRADE_ID = "agent_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "at most max_turns + 1 model calls (with max_turns=0, one call)",
    "when the response after the last allowed turn still asks for tools, they are not run and there is no answer",
    "a max_turns below 0 is bad input: ValueError before any call",
]


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    messages = [{"role": "user", "content": prompt}]
    while True:  # the mistake: nothing but the model ends the loop
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text"), messages + [{"role": "assistant", "content": r.content}]
        if r.stop_reason != "tool_use":
            return None, messages
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
