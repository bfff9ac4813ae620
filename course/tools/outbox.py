"""Side effects outside the workspace, and idempotency keys.

An e-mail sent is sent: `Workspace.rewind()` cannot take it back, and a
session resumed after a crash does not know it happened. `Outbox.send` can
take an idempotency key (here, the recipient): a second send with a key it
has seen is answered "already sent" and sends nothing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..i18n import tr
from .toolbox import Tool, Toolbox


class Crash(BaseException):
    """The process died. A BaseException, so neither the tools nor the loop turn it into a
    result."""


@dataclass
class Outbox:
    """The mail server: what was sent, in order, and the idempotency keys seen."""

    sent: list[dict] = field(default_factory=list)
    keys: set[str] = field(default_factory=set)
    crash_after: int | None = None  # die right after recording this many sends (once)

    def send(self, to: str, subject: str, body: str, idempotency_key: str | None = None) -> str:
        if idempotency_key is not None and idempotency_key in self.keys:
            return tr("already sent to {to} (idempotency key {key}); nothing sent").format(
                to=to, key=repr(idempotency_key)
            )
        self.sent.append({"to": to, "subject": subject, "body": body})
        if idempotency_key is not None:
            self.keys.add(idempotency_key)
        if self.crash_after is not None and len(self.sent) >= self.crash_after:
            self.crash_after = None  # the restarted process does not crash again
            raise Crash(tr("the process died right after sending to {to}, before the result was "
                           "saved").format(to=to))
        return tr("sent to {to}").format(to=to)

    def received(self, to: str) -> int:
        """How many e-mails `to` got."""
        return sum(1 for m in self.sent if m["to"] == to)

    def tools(self, *, keyed: bool = False) -> Toolbox:
        """send_email; with `keyed`, its schema requires an idempotency_key."""
        s = {"type": "string"}
        props = {"to": s, "subject": s, "body": s}
        if keyed:
            props["idempotency_key"] = {"type": "string",
                                        "description": tr("the same key never sends twice")}
        return Toolbox([Tool("send_email", tr("Send an e-mail. It cannot be unsent."),
                             {"type": "object", "properties": props, "required": list(props)},
                             self.send)])
