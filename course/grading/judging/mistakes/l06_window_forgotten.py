"""Knows six of the seven stop reasons: model_context_window_exceeded raises as if it were unknown."""
from course.grading.judging.checks.l06_other_stop_reasons import WINDOW_FORGOTTEN as MISTAKE

GRADE_ID = "stop_action"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "model_context_window_exceeded: stop",
]


def stop_action(stop_reason):
    if stop_reason == "tool_use":
        return "run_tools"
    if stop_reason in ("end_turn", "stop_sequence"):
        return "answer"
    if stop_reason == "pause_turn":
        return "continue"
    if stop_reason in ("max_tokens", "refusal"):  # the mistake: model_context_window_exceeded is missing
        return "stop"
    raise ValueError(f"unknown stop_reason {stop_reason!r}")
