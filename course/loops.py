"""The three loops of the blog (seed 003), told apart by who starts the next lap.

- inner loop: the Agent itself; the model starts each lap by asking for tools.
- goal loop (`goal_loop`, like Claude Code's /goal): after each inner run an
  evaluator, which sees only the conversation, says "not yet" (its reason goes
  back as the next user message of the SAME conversation), "achieved" or
  "impossible". It also stops when rounds stall (no tool use) or hit a cap.
- outer loop (`outer_loop`, like a shell `while` around `claude -p`): every lap
  is a fresh session; the only state carried over is the files. A success
  condition is checked before each lap, and laps are capped.

A crash between a side effect and its record makes a resumed session do the
effect again; `run_saving` keeps the session as it was saved before each model
call, and `course.outbox` shows idempotency keys turning the repeat into a no-op.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .events import ModelCall, Result
from .loop import Agent, finish
from .messages import user

NOT_YET, ACHIEVED, IMPOSSIBLE = "not_yet", "achieved", "impossible"  # the evaluator's three answers
STALLED, MAX_ROUNDS, MAX_LAPS, SUCCESS = "stalled", "max_rounds", "max_laps", "success"  # how the loops end


@dataclass(frozen=True)
class Verdict:
    """The goal evaluator's answer after an inner run."""

    status: str  # NOT_YET, ACHIEVED or IMPOSSIBLE
    reason: str = ""


@dataclass
class GoalResult:
    """How a goal loop ended: `status` is achieved, impossible, stalled, max_rounds, or the failing inner subtype."""

    status: str
    rounds: list[Result] = field(default_factory=list)  # one inner run per round
    verdicts: list[Verdict] = field(default_factory=list)
    messages: list = field(default_factory=list)  # the one conversation, all rounds

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.rounds)

    @property
    def cost_usd(self) -> float:
        return sum(r.cost_usd for r in self.rounds)


def goal_loop(agent: Agent, prompt: str, evaluate: Callable[[list], Verdict], *, max_rounds: int = 10,
              stall_rounds: int = 2) -> GoalResult:
    """Run `agent` until `evaluate(messages)` is not "not yet"; feed each reason back in the same conversation.

    Stops as `stalled` after `stall_rounds` rounds in a row without a tool call, and as `max_rounds` after
    `max_rounds` rounds. An inner run that ends in error ends the goal loop with that subtype.
    """
    out = GoalResult(MAX_ROUNDS)
    history: str | list = prompt
    idle = 0  # rounds in a row without tool use
    for _ in range(max_rounds):
        result = agent.run(history)
        out.rounds.append(result)
        out.messages = result.messages
        if result.is_error:
            out.status = result.subtype
            return out
        verdict = evaluate(result.messages)
        out.verdicts.append(verdict)
        if verdict.status != NOT_YET:
            out.status = verdict.status
            return out
        idle = idle + 1 if result.turns == 0 else 0
        if idle >= stall_rounds:
            out.status = STALLED
            return out
        history = result.messages + [user(f"Not yet: {verdict.reason}")]
    return out


@dataclass
class OuterResult:
    """How an outer loop ended: `success` (the condition held before a lap) or `max_laps`."""

    status: str
    laps: list[Result] = field(default_factory=list)  # one fresh session per lap

    @property
    def calls(self) -> int:
        return sum(r.calls for r in self.laps)


def outer_loop(new_session: Callable[[], Agent], prompt: str, done: Callable[[], bool], *,
               max_laps: int = 8) -> OuterResult:
    """Start a fresh session with the same prompt until `done()` (checked before each lap), at most `max_laps` laps."""
    laps: list[Result] = []
    while not done():
        if len(laps) >= max_laps:
            return OuterResult(MAX_LAPS, laps)
        laps.append(new_session().run(prompt))
    return OuterResult(SUCCESS, laps)


def run_saving(agent: Agent, prompt: str | list, session: list) -> Result:
    """`agent.run(prompt)`, keeping in `session` the history as saved before each model call (a session log).

    If the process dies mid-turn, `session` holds what a resumed session starts from: `agent.run(session)`.
    """
    def saved(events):
        for event in events:
            if isinstance(event, ModelCall):
                session[:] = event.messages
            yield event

    return finish(saved(agent.events(prompt)))
