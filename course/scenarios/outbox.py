"""Sending e-mails to three recipients: a side effect outside the files, a crash, a resume."""
from __future__ import annotations

import contextlib

from ..api import Conversation, Turn
from ..i18n import deferred, tr
from ..outer_loop import run_saving
from ..tools.outbox import Crash, Outbox
from .base import Scenario, call, last_turn, one_task, say

RECIPIENTS = ("alice@example.com", "bob@example.com", "carol@example.com")


@one_task
def mailing_policy(c: Conversation) -> Turn:
    """One e-mail per turn to whoever has no successful send in the conversation; keyed by recipient
    when the tool takes an idempotency_key."""
    failed = [c.result_text(r) for _, r in last_turn(c) if r.get("is_error")]
    if failed:
        return say(tr("Sending failed ({error}); I stopped.").format(error=failed[0]))
    done = {u["input"].get("to") for u, r in c.all_results()}
    todo = [r for r in RECIPIENTS if r not in done]
    if not todo:
        return say(tr("All {n} e-mails are sent.").format(n=len(RECIPIENTS)))
    # `send_email`, or `mcp__course__send_email` when a harness hosts it
    name = c.tool("send_email")
    schema: dict = next((t["input_schema"] for t in c.body.get("tools") or []
                         if t.get("name") == name), {})
    key = {"idempotency_key": f"launch-notice:{todo[0]}"} if "idempotency_key" in schema.get(
        "properties", {}) else {}
    return say(tr("Sending to {to}.").format(to=todo[0]),
               call("send_email", to=todo[0], subject=tr("Launch notice"),
                                                               body=tr("We launch on Monday."),
                    **key))


OUTBOX = Scenario(
    "outbox", deferred("E-mails, a crash and a resume"),
    deferred("Send the launch notice to alice, bob and carol."), mailing_policy,
    lambda: Outbox().tools(),
    notes="a crash after the 3rd send, then a resume: carol gets two e-mails, unless sends carry "
          "idempotency keys")


def crash_and_resume(*, keyed: bool) -> Outbox:
    """Run the outbox scenario, crash right after the 3rd send, resume the saved session; the Outbox
    after."""
    outbox = Outbox(crash_after=3)
    session: list = []
    with contextlib.suppress(Crash):  # the session log holds the history as of the last model call
        run_saving(OUTBOX.agent(tools=outbox.tools(keyed=keyed)), OUTBOX.prompt, session)
    OUTBOX.agent(tools=outbox.tools(keyed=keyed)).run(session)
    return outbox
