"""Returns as soon as the inner loop ends, without asking the evaluator."""
from course.grading.judging.checks.l12_three_loops import STOPS_EARLY as MISTAKE

GRADE_ID = "goal_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a round runs the inner loop until the model stops asking for tools; max_turns caps each round's tool-use turns, and a round that hits it ends everything as error_max_turns",
    "then the evaluator reads the whole conversation so far, the model's final reply included, as plain dicts",
    "achieved or impossible: that word and the round",
    "not yet: stalled once stall_rounds rounds in a row had no tool call; otherwise its line goes into the same conversation as a user message",
    "after max_rounds rounds: max_rounds",
]


def goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    while True:
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": r.content})
        if r.stop_reason != "tool_use":
            return "achieved", 1  # the mistake: the model stopping is not the goal reached
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages.append({"role": "user", "content": results})
