"""The outer loop (the Blog's third loop, like a shell `while` around `claude -p`), around the
student's `agent_loop`.

Every lap is a fresh session: the loop starts again from the prompt, and the only state carried over
is the files. A success condition is checked before each lap, and laps are capped.

A crash between a side effect and its record makes a resumed session do the effect again;
`run_saving` keeps the session as it was saved before each model call, and `course.tools.outbox`
shows idempotency keys turning the repeat into a no-op.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .events import ModelCall, Result
from .goal_loop import Loop
from .loop import Agent, finish
from .session import Metered, Session

SUCCESS, MAX_LAPS = "success", "max_laps"  # how an outer loop ends


@dataclass
class OuterResult(Metered):
    """How an outer loop ended: `success` (the condition held before a lap) or `max_laps`."""

    status: str
    laps: list[list] = field(default_factory=list)  # each lap's messages: one fresh session per lap
    responses: list = field(default_factory=list)  # every model response, all laps

def outer_loop(loop: Loop, client, prompt: str, done: Callable[[], bool], *,
               max_laps: int = 8) -> OuterResult:
    """Run `loop` on the same prompt, a fresh conversation each lap, until `done()` (checked before
    each lap), at most `max_laps` laps."""
    out = OuterResult(SUCCESS)
    while not done():
        if len(out.laps) >= max_laps:
            out.status = MAX_LAPS
            return out
        session = Session(client)  # nothing earlier: a fresh session
        _, messages = loop(session, prompt)
        out.laps.append(messages)
        out.responses += session.responses
    return out


def run_saving(agent: Agent, prompt: str | list, session: list) -> Result:
    """`agent.run(prompt)`, keeping in `session` the history as saved before each model call (a
    session log).

    If the process dies mid-turn, `session` holds what a resumed session starts from:
    `agent.run(session)`.
    """
    def saved(events):
        for event in events:
            if isinstance(event, ModelCall):
                session[:] = event.messages
            yield event

    return finish(saved(agent.events(prompt)))
