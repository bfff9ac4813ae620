"""Stops for the budget only once the spend is past it (`>`), so a spend exactly at the budget runs on."""
from course.grading.judging.checks.l07_context_growth_and_budgets import STRICTLY_OVER as MISTAKE
from course.pricing import cost_usd

GRADE_ID = "budget_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "after a response asking for tools: error_max_budget_usd once spent_usd >= max_budget_usd, else error_max_turns at the cap; its tools are not run",
]


def budget_loop(client, model, tools, run_tool, prompt, *, max_budget_usd, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    spent, calls, turns = 0.0, 0, 0
    while True:
        response = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        calls += 1
        spent += cost_usd(model, response.usage)  # known only once the response has arrived
        if response.stop_reason != "tool_use":
            return "success", spent, calls
        if spent > max_budget_usd:  # the mistake: the text says spent_usd >= max_budget_usd
            return "error_max_budget_usd", spent, calls  # checked after the response, before its tools
        if turns == max_turns:
            return "error_max_turns", spent, calls
        results = []
        for block in response.content:
            if block.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": run_tool(block.name, block.input)})
                except Exception as error:
                    results.append({"type": "tool_result", "tool_use_id": block.id, "content": f"Error: {error}", "is_error": True})
        messages = messages + [{"role": "assistant", "content": response.content}, {"role": "user", "content": results}]
        turns += 1
