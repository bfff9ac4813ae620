"""The goal loop (the Blog's second loop, like Claude Code's /goal), built around the student's
`agent_loop`.

After each run of the inner loop an evaluator, which sees only the conversation, says "not yet" (its
reason goes back as the next user message of the SAME conversation), "achieved" or "impossible". The
goal loop also stops when rounds stall (no tool use) or hit a cap.

`loop(client, prompt) -> (answer, messages)` is the student's loop with its model, tools and
run_tool given, e.g. `lambda client, prompt: agent_loop(client, MODEL, tools, run_tool, prompt)`. It
always starts a conversation from `prompt`; given a `Session` holding the earlier rounds, it
continues them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .messages import as_dict, tool_uses
from .session import Metered, Session

NOT_YET, ACHIEVED, IMPOSSIBLE = "not_yet", "achieved", "impossible"  # the evaluator's three answers
STALLED, MAX_ROUNDS, UNFINISHED = "stalled", "max_rounds", "unfinished"  # other ends of a goal loop

Loop = Callable[[object, str], tuple]  # (client, prompt) -> (answer or None, messages)


@dataclass(frozen=True)
class Verdict:
    """The goal evaluator's answer after an inner run."""

    status: str  # NOT_YET, ACHIEVED or IMPOSSIBLE
    reason: str = ""


@dataclass
class GoalResult(Metered):
    """How a goal loop ended: `status` is achieved, impossible, stalled, max_rounds or
    unfinished."""

    status: str
    rounds: list[list] = field(default_factory=list)  # each round's messages, from its prompt on
    verdicts: list[Verdict] = field(default_factory=list)
    messages: list = field(default_factory=list)  # the one conversation, all rounds
    responses: list = field(default_factory=list)  # every model response, all rounds

def used_tools(messages: list) -> bool:
    """Whether any assistant message asked for a tool."""
    return any(tool_uses(m) for m in messages if as_dict(m)["role"] == "assistant")


def goal_loop(loop: Loop, client, prompt: str, evaluate: Callable[[list], Verdict], *, max_rounds: int = 10,
              stall_rounds: int = 2) -> GoalResult:
    """Run `loop` until `evaluate(messages)` is not "not yet"; send each reason back in the same conversation.

    Stops as `stalled` after `stall_rounds` rounds in a row without a tool call, as `max_rounds` after
    `max_rounds` rounds, and as `unfinished` when the inner loop returns no answer (its cap, max_tokens, ...).
    """
    out = GoalResult(MAX_ROUNDS)
    idle = 0  # rounds in a row without tool use
    for _ in range(max_rounds):
        session = Session(client, list(out.messages))
        answer, messages = loop(session, prompt)
        out.rounds.append(messages)
        out.messages = out.messages + messages
        out.responses += session.responses
        if answer is None:
            out.status = UNFINISHED
            return out
        verdict = evaluate(as_dict(out.messages))  # the conversation as plain JSON, as it crossed the wire
        out.verdicts.append(verdict)
        if verdict.status != NOT_YET:
            out.status = verdict.status
            return out
        idle = 0 if used_tools(messages) else idle + 1
        if idle >= stall_rounds:
            out.status = STALLED
            return out
        prompt = f"Not yet: {verdict.reason}"
    return out
