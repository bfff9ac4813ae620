"""Counts only the responses that ask for tools, so the final answer is never paid for."""
from course.grading.judging.checks.l07_context_growth_and_budgets import LAST_COST as MISTAKE

GRADE_ID = "budget_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "every response's cost is added to spent_usd as it arrives, the final one included",
    "a response without tool use ends the run as success, even when its cost reaches the budget",
    "after a response asking for tools: error_max_budget_usd once spent_usd >= max_budget_usd, else error_max_turns at the cap; its tools are not run",
    "exercise 10.1: with max_turns=0 exactly one call and no tool runs",
]


def budget_loop(client, model, tools, run_tool, prompt, *, max_budget_usd, max_turns=10):
    from course.pricing import cost_usd

    messages = [{"role": "user", "content": prompt}]
    spent, calls, turns = 0.0, 0, 0
    while True:
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        calls += 1
        if r.stop_reason != "tool_use":
            return "success", spent, calls
        spent += cost_usd(model, r.usage)  # the mistake: only responses that ask for tools are counted
        if spent >= max_budget_usd:
            return "error_max_budget_usd", spent, calls
        if turns == max_turns:
            return "error_max_turns", spent, calls
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
        turns += 1
