"""What the checks share: failing with a hint, and reading what crossed the wire."""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...scenarios import Scenario, say
from ..exercise import CLIENT, RUN_TOOL, CheckFailed, Outcome


def expect(ok: bool, reason: str, hint: str = "") -> None:
    """Fail the check with `reason` (and the likely mistake, `hint`) unless `ok`."""
    if not ok:
        raise CheckFailed(reason, hint)


def returned(out: Outcome, hint: str = "") -> None:
    """The function returned (it did not raise)."""
    expect(out.error is None, f"the function raised {out.error}", hint)


def accepted(out: Outcome, diagnose=lambda body: "") -> None:
    """Every request was answered 200; otherwise fail with the API's own message and `diagnose(body)`."""
    for k, status in enumerate(out.statuses):
        if status != 200:
            reply = out.replies[k] if k < len(out.replies) else {}
            message = (reply or {}).get("error", {}).get("message", "")
            raise CheckFailed(f"request {k + 1} was rejected by the API with {status}: {message}",
                              diagnose(out.requests[k]))


def loop_args(scenario: Scenario, prompt: str | None = None) -> list:
    """(client, model, tools, run_tool, prompt) for a loop running `scenario`."""
    return [CLIENT, MODEL, scenario.make_tools().definitions(), RUN_TOOL, scenario.prompt if prompt is None else prompt]


def pair(value) -> tuple:
    """A returned (answer, messages) pair; fail if the value has another shape."""
    expect(isinstance(value, list) and len(value) == 2 and isinstance(value[1], list),
           f"expected a pair (answer, messages), got {str(value)[:120]}", "return a tuple (answer, messages)")
    return value[0], value[1]


def content(message: dict) -> list[dict]:
    """A message's content as a list of blocks (a string is one text block)."""
    c = message.get("content", [])
    return [{"type": "text", "text": c}] if isinstance(c, str) else list(c)


def text_of(message: dict) -> str:
    """The text blocks of a message (or of a reply: anything with `content`), joined."""
    return "".join(b.get("text", "") for b in content(message) if b.get("type") == "text")


def essential(block: dict) -> dict:
    """The fields of a block that carry its meaning (SDK dumps add others, e.g. citations)."""
    keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
            "tool_result": ("type", "tool_use_id", "content")}.get(block.get("type"))
    if keep is None:
        return block
    out = {k: block.get(k) for k in keep}
    if block.get("type") == "tool_result":
        out["is_error"] = bool(block.get("is_error"))
    return out


def same_message(a: dict, b: dict) -> bool:
    """Two messages with the same role and the same blocks."""
    return a.get("role") == b.get("role") and [essential(x) for x in content(a)] == [essential(x) for x in content(b)]


def no_model(c: Conversation) -> Turn:
    return say("This scenario only runs tools.")


def tools_only(name: str, title: str, make_tools) -> Scenario:
    """A scenario for functions that run tools themselves and never call the model."""
    return Scenario(name, title, "", no_model, make_tools)
