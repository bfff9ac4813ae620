"""Checks the budget before each call, so the tools of the response that crossed it still run."""
from course.grading.judging.checks.l07_context_growth_and_budgets import CHECK_BEFORE_TOOLS as MISTAKE
from course.pricing import cost_usd

GRADE_ID = "budget_loop"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "after a response asking for tools: error_max_budget_usd once spent_usd >= max_budget_usd, else error_max_turns at the cap; its tools are not run",
    "exercise 10.1: with max_turns=0 exactly one call and no tool runs",
]


def budget_loop(client, model, tools, run_tool, prompt, *, max_budget_usd, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    spent, calls = 0.0, 0
    for turn in range(max_turns + 1):
        if spent >= max_budget_usd:  # the mistake: too late, the last response's tools already ran
            return "error_max_budget_usd", spent, calls
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        calls += 1
        spent += cost_usd(model, r.usage)
        if r.stop_reason != "tool_use":
            return "success", spent, calls
        if turn == max_turns:
            return "error_max_turns", spent, calls
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
    return "error_max_budget_usd", spent, calls
