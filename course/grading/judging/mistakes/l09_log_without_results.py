"""Logs each call's tool_uses but never what came back."""
from course.grading.judging.checks.l09_guards_and_observability import RESULTS_MISSING as MISTAKE

GRADE_ID = "turn_log"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "results: each result's tool_use_id, is_error and the first 80 characters of its content; [] when no tools ran",
]


def turn_log(client, model, tools, run_tool, prompt, *, max_turns=10):
    messages, log = [{"role": "user", "content": prompt}], []
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=1024, tools=tools, messages=messages)
        uses = [b for b in r.content if b.type == "tool_use"]
        log.append({"call": turn + 1, "stop_reason": r.stop_reason, "results": [],  # the mistake: results never filled
                    "tool_uses": [{"id": u.id, "name": u.name, "input": u.input} for u in uses],
                    "input_tokens": r.usage.input_tokens, "output_tokens": r.usage.output_tokens})
        if r.stop_reason != "tool_use" or turn == max_turns:
            return log
        results = []
        for u in uses:
            try:
                results.append({"type": "tool_result", "tool_use_id": u.id, "content": run_tool(u.name, u.input)})
            except Exception as e:
                results.append({"type": "tool_result", "tool_use_id": u.id, "content": str(e), "is_error": True})
        messages += [{"role": "assistant", "content": r.content}, {"role": "user", "content": results}]
