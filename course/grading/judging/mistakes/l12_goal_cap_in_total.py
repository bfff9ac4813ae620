"""Counts max_turns over all rounds instead of per round."""
from course.grading.judging.checks.l12_three_loops import CAP_IN_TOTAL as MISTAKE

GRADE_ID = "goal_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a round runs the inner loop until the model stops asking for tools; max_turns caps each round's tool-use turns, and a round that hits it ends everything as error_max_turns",
    "then the evaluator reads the whole conversation so far, the model's final reply included, as plain dicts",
]


def goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    idle, turns = 0, 0  # rounds in a row without a tool call; the mistake: one count for all rounds
    for round_number in range(1, max_rounds + 1):
        used = turns
        while True:
            response = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
            reply = [block.model_dump(exclude_none=True) for block in response.content]  # plain dicts
            messages = messages + [{"role": "assistant", "content": reply}]
            if response.stop_reason != "tool_use":
                break
            if turns == max_turns:
                return "error_max_turns", round_number
            turns += 1
            results = []
            for block in response.content:
                if block.type == "tool_use":
                    try:
                        results.append({"type": "tool_result", "tool_use_id": block.id,
                                        "content": run_tool(block.name, block.input)})
                    except Exception as error:
                        results.append({"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {error}",
                                        "is_error": True})
            messages = messages + [{"role": "user", "content": results}]
        verdict = run_tool("evaluate_goal", {"messages": messages})  # it reads only the conversation
        if verdict.startswith(("achieved", "impossible")):
            return verdict.split(":")[0], round_number
        idle = 0 if turns > used else idle + 1
        if idle >= stall_rounds:
            return "stalled", round_number
        messages = messages + [{"role": "user", "content": verdict}]  # "not yet: ...", in the same conversation
    return "max_rounds", max_rounds
