"""The lesson's shortcut `if stop_reason != "tool_use": answer`, so refusals and cut replies are answers."""
from course.grading.judging.checks.l06_other_stop_reasons import ALL_BUT_TOOL_USE as MISTAKE

GRADE_ID = "stop_action"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "pause_turn: continue",
    "max_tokens: stop",
    "refusal: stop",
    "model_context_window_exceeded: stop",
    "any other value raises ValueError",
]


def stop_action(stop_reason):
    return "run_tools" if stop_reason == "tool_use" else "answer"  # the mistake
