"""Never detects rounds without tool use."""
from course.grading.judging.checks.l12_three_loops import NO_STALL as MISTAKE

GRADE_ID = "goal_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "not yet: stalled once stall_rounds rounds in a row had no tool call; otherwise its line goes into the same conversation as a user message",
]


def goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    idle = 0  # rounds in a row without a tool call
    for round_number in range(1, max_rounds + 1):
        turns = 0  # the cap is per round: each round counts its own tool-use turns
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
        idle = 0 if turns else idle + 1  # the mistake
        messages = messages + [{"role": "user", "content": verdict}]  # "not yet: ...", in the same conversation
    return "max_rounds", max_rounds
