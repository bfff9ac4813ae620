"""Starts every round from a new conversation with the feedback as its prompt."""
from course.grading.judging.checks.l12_three_loops import NEW_CONVERSATION as MISTAKE
from course.grading.judging.checks.l12_three_loops import IMPOSSIBLE_IGNORED

GRADE_ID = "goal_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a round runs the inner loop until the model stops asking for tools; max_turns caps each round's tool-use turns, and a round that hits it ends everything as error_max_turns",
    "then the evaluator reads the whole conversation so far, the model's final reply included, as plain dicts",
    "achieved or impossible: that word and the round",
    "not yet: stalled once stall_rounds rounds in a row had no tool call; otherwise its line goes into the same conversation as a user message",
    "after max_rounds rounds: max_rounds",
]
ALSO = (IMPOSSIBLE_IGNORED,)  # it ends only on achieved


def goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10):
    request, idle = prompt, 0
    for round in range(1, max_rounds + 1):
        messages = [{"role": "user", "content": request}]  # the mistake: the history is gone
        used = False
        while True:
            r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
            messages.append({"role": "assistant", "content": r.content})
            if r.stop_reason != "tool_use":
                break
            used = True
            results = []
            for b in r.content:
                if b.type == "tool_use":
                    try:
                        results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                    except Exception as e:
                        results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
            messages.append({"role": "user", "content": results})
        verdict = run_tool("evaluate_goal", {"messages": [{"role": m["role"], "content": m["content"] if isinstance(m["content"], str) else [b if isinstance(b, dict) else b.model_dump() for b in m["content"]]} for m in messages]})
        if verdict.startswith("achieved"):
            return "achieved", round
        idle = 0 if used else idle + 1
        if idle >= stall_rounds:
            return "stalled", round
        request = prompt + " Not yet: " + verdict
    return "max_rounds", max_rounds
