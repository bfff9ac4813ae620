"""Tool errors the model can read and recover from: an unknown tool, then an input against the
schema."""
from __future__ import annotations

from ..api import Conversation, Turn
from ..i18n import deferred, tr
from .base import Scenario, call, last_turn, one_task, say


@one_task
def recovering_policy(c: Conversation) -> Turn:
    """Guess a tool name, then its argument; correct each guess from the is_error text that comes
    back."""
    if not c.results():
        return say(tr("I'll open the notes."), call("open_file", file="notes.txt"))
    (use, result), = last_turn(c)
    error = c.result_text(result)
    if not result.get("is_error"):
        return say(tr("The notes say: {notes}").format(notes=error.strip()))
    # what went wrong is read from the request (its tools and their schemas), not from the error's
    # wording
    if use["name"] not in c.tool_names:
        reader = next((n for n in c.tool_names if n.startswith("read")), None)
        if reader:
            return say(
                tr("There is no {name}; {reader} exists.").format(name=use["name"], reader=reader),
                call(reader, **use["input"]))
    tools = c.body.get("tools") or []
    schema: dict = next((t.get("input_schema", {}) for t in tools if t.get("name") == use["name"]),
                        {})
    missing = next((p for p in schema.get("required", []) if p not in use["input"]), None)
    if missing:
        value = next(iter(use["input"].values()), "notes.txt")
        return say(tr("The argument is called {name}.").format(name=missing),
                   call(use["name"], **{missing: value}))
    return say(tr("I could not read the notes: {error}").format(error=error))


UNKNOWN_TOOL = Scenario(
    "unknown_tool", deferred("An unknown tool, then an invalid input"),
    deferred("What do my notes say?"), recovering_policy,
    files={"notes.txt": "Buy milk. Call Ada at 5."},
    workspace_tools=lambda ws: ws.toolbox(run=False),
    # the real API never calls an undeclared tool; a loop must still cope
    options={"undeclared_tools": True},
    notes="open_file does not exist, read_file(file=...) fails the schema; both is_error, then "
          "read_file(path=...)")
