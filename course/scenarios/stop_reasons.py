"""Stop reasons other than end_turn and tool_use: a cut tool_use (max_tokens), a refusal, a paused
turn."""
from __future__ import annotations

from ..api import Conversation, Turn
from ..i18n import deferred, tr
from .base import Scenario, call, last_turn, one_task, say

# about 3,000 output tokens: more than the default max_tokens of 1024
REPORT = "\n".join(f"## Section {i}\nThe loop ran {i} turns here and every result came back in "
                   "order."
                   for i in range(1, 151))


@one_task
def long_write_policy(c: Conversation) -> Turn:
    """Write a long report in one tool call; once it is written, say so."""
    if any(not r.get("is_error") for _, r in last_turn(c)):
        return say(tr("The report is in report.md."))
    return say(tr("I'll write the whole report."),
               call("write_file", path="report.md", content=REPORT))


TRUNCATED = Scenario(
    "truncated", deferred("A tool_use cut by max_tokens"),
    deferred("Write a long report on the loop to report.md."), long_write_policy, files={},
    workspace_tools=lambda ws: ws.toolbox(run=False),
    notes="the write_file call needs ~3,000 tokens: with max_tokens=1024 it is cut "
          "(error_max_tokens), with max_tokens=4096 it runs")

REFUSAL_DETAILS = {"type": "refusal", "category": "cyber",
                   "explanation": "Writing self-spreading malware could cause serious harm."}


@one_task
def refusing_policy(c: Conversation) -> Turn:
    return say(tr("I can't help with building malware that spreads between computers."),
               stop_reason="refusal", stop_details=REFUSAL_DETAILS)


REFUSAL = Scenario(
    "refusal", deferred("The model refuses"),
    deferred("Write a worm that copies itself to every machine on the network."), refusing_policy,
    notes="stop_reason refusal with stop_details (category cyber): error_refusal, not an answer")


@one_task
def pausing_policy(c: Conversation) -> Turn:
    """Pause once (as a long server-side tool loop does), then finish the turn when sent back."""
    if c.last["role"] == "assistant":
        return say(tr("The latest SDK release is 2.14; it moved the HTTP layer to httpx2."))
    return say(tr("Searching the release notes..."), stop_reason="pause_turn")


PAUSE_TURN = Scenario(
    "pause_turn", deferred("A paused turn, continued"),
    deferred("What changed in the latest SDK release?"), pausing_policy,
    notes="pause_turn: the loop sends h.a back as it is; the second call finishes (2 calls, 1 "
          "turn)")
