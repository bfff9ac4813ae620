"""Answers every value it does not know with "stop" instead of raising."""
from course.grading.judging.checks.l06_other_stop_reasons import UNKNOWN_STOPS as MISTAKE

GRADE_ID = "stop_action"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "any other value raises ValueError",
]

ACTIONS = {"tool_use": "run_tools", "end_turn": "answer", "stop_sequence": "answer", "pause_turn": "continue",
           "max_tokens": "stop", "refusal": "stop", "model_context_window_exceeded": "stop"}


def stop_action(stop_reason):
    return ACTIONS.get(stop_reason, "stop")  # the mistake: a new value goes unnoticed
