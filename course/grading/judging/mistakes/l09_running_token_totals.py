"""Logs running token totals instead of each call's own usage."""
from course.grading.judging.checks.l09_guards_and_observability import TOKENS_TOTAL as MISTAKE

GRADE_ID = "turn_log"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "input_tokens and output_tokens: that call's own usage",
]


def turn_log(client, model, tools, run_tool, prompt, *, max_turns=10):
    messages = [{"role": "user", "content": prompt}]
    log, total_in, total_out = [], 0, 0
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        total_in += r.usage.input_tokens  # the mistake
        total_out += r.usage.output_tokens  # the mistake
        uses = [b for b in r.content if b.type == "tool_use"]
        record = {"call": turn + 1, "stop_reason": r.stop_reason, "results": [], "input_tokens": total_in,
                  "output_tokens": total_out, "tool_uses": [{"id": u.id, "name": u.name, "input": u.input} for u in uses]}
        log.append(record)
        if r.stop_reason != "tool_use" or turn == max_turns:
            return log
        results = []
        for u in uses:
            try:
                results.append({"type": "tool_result", "tool_use_id": u.id, "content": run_tool(u.name, u.input)})
            except Exception as e:
                results.append({"type": "tool_result", "tool_use_id": u.id, "content": str(e), "is_error": True})
        record["results"] = [{"tool_use_id": x["tool_use_id"], "is_error": x.get("is_error", False),
                              "preview": x["content"][:80]} for x in results]
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
