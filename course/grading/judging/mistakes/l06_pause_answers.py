"""Maps pause_turn to "answer", as if a paused reply were finished."""
from course.grading.judging.checks.l06_other_stop_reasons import PAUSE_ANSWERS as MISTAKE

GRADE_ID = "stop_action"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "pause_turn: continue",
]


def stop_action(stop_reason):
    if stop_reason == "tool_use":
        return "run_tools"
    if stop_reason in ("end_turn", "stop_sequence", "pause_turn"):  # the mistake: pause_turn is not finished
        return "answer"
    if stop_reason in ("max_tokens", "refusal", "model_context_window_exceeded"):
        return "stop"
    raise ValueError(f"unknown stop_reason {stop_reason!r}")
