"""Maps stop_sequence to "stop", as if a stop sequence the caller asked for cut the reply."""
from course.grading.judging.checks.l06_other_stop_reasons import STOP_SEQUENCE_STOPS as MISTAKE

GRADE_ID = "stop_action"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "stop_sequence: answer",
]


def stop_action(stop_reason):
    if stop_reason == "tool_use":
        return "run_tools"
    if stop_reason == "end_turn":
        return "answer"
    if stop_reason == "pause_turn":
        return "continue"
    if stop_reason in ("max_tokens", "refusal", "model_context_window_exceeded", "stop_sequence"):  # the mistake
        return "stop"
    raise ValueError(stop_reason)
