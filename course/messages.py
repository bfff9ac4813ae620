"""Messages and content blocks (Def. 2.1), and the pairing invariant P1-P3 (Def. 3.3).

Everything here works on plain dicts, the wire format of the Messages API.
`as_dict` turns SDK objects (Message, ToolUseBlock, ...) into those dicts.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, overload

from .i18n import tr


def text(s: str) -> dict:
    """A text block."""
    return {"type": "text", "text": s}


def tool_use(id: str, name: str, input: dict) -> dict:
    """A tool_use block: the model asks to call `name` with `input`."""
    return {"type": "tool_use", "id": id, "name": name, "input": input}


def tool_result(tool_use_id: str, content: str, is_error: bool = False) -> dict:
    """A tool_result block answering the tool_use with the same id."""
    block: dict[str, object] = {"type": "tool_result", "tool_use_id": tool_use_id,
                                "content": content}
    if is_error:
        block["is_error"] = True
    return block


def user(*blocks: dict | str) -> dict:
    return {"role": "user", "content": [text(b) if isinstance(b, str) else b for b in blocks]}


def assistant(*blocks: dict | str) -> dict:
    return {"role": "assistant", "content": [text(b) if isinstance(b, str) else b for b in blocks]}


def as_dict(obj: Any) -> Any:
    """SDK objects (pydantic models) and nested lists of them, as plain JSON-ready dicts."""
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json", exclude_none=True)
    if isinstance(obj, dict):
        return {k: as_dict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [as_dict(v) for v in obj]
    return obj


@overload
def content_blocks(content: str | list) -> list: ...
@overload
def content_blocks(content: None) -> None: ...
def content_blocks(content: str | list | None) -> list | None:
    """A message's content as a list of blocks: a string content is one text block (the API's
    rule)."""
    return [text(content)] if isinstance(content, str) else content


def blocks(message: Any) -> list[dict]:
    """The content of a message as a list of block dicts."""
    return list(content_blocks(as_dict(message).get("content", [])) or [])


def tool_uses(message: Any) -> list[dict]:
    """U(m): the message's tool_use blocks, in order."""
    return [b for b in blocks(message) if b.get("type") == "tool_use"]


def text_of(message: Any) -> str:
    """The message's text blocks joined together."""
    return "".join(b.get("text", "") for b in blocks(message) if b.get("type") == "text")


@dataclass(frozen=True)
class Violation:
    """One broken rule of the pairing invariant, and where."""

    rule: str  # "P1", "P2" or "P3"
    index: int  # index of the message where it was found
    detail: str

    def __str__(self) -> str:
        return tr("{rule} at messages[{index}]: {detail}").format(
            rule=self.rule, index=self.index, detail=self.detail)


def violations(messages: list, *, final_assistant: bool = False) -> list[Violation]:
    """Every way `messages` breaks P1-P3 (empty when the invariant holds), the earliest message
    first. A P2 break is reported at the assistant message whose tool_uses are not answered, as the
    API's 400 names it (`messages.N: tool_use ids were found without tool_result blocks immediately
    after`).

    final_assistant=True accepts a last assistant message without tool_use: the
    history of a finished run, h . a, which is no longer a request to send.

    A `system` message (the operator's, mid-conversation) is not a turn: P1-P3 pass over it, as the
    API does.
    """
    listed = [as_dict(m) for m in messages]
    # each turn's index in `messages`
    turns = [i for i, m in enumerate(listed) if m.get("role") != "system"]
    found = _turn_violations([listed[i] for i in turns], final_assistant)
    return [replace(v, index=turns[v.index] if turns else 0) for v in found]


def _turn_violations(msgs: list[dict], final_assistant: bool) -> list[Violation]:
    """violations() over the turns alone (indices into `msgs`)."""
    found: list[Violation] = []
    if not msgs:
        return [Violation("P1", 0,
                          tr("the list is empty; the first message must be from the user"))]
    if msgs[0].get("role") != "user":
        found.append(Violation("P1", 0, tr("the first message is from {role!r}, not 'user'").format(
            role=msgs[0].get("role"))))
    last = msgs[-1]
    if last.get("role") != "user" and not (final_assistant and not tool_uses(last)):
        found.append(Violation("P1", len(msgs) - 1,
                               tr("the last message is from {role!r}, not 'user'").format(
            role=last.get("role"))))
    answered: set[int] = set()  # indexes of user messages whose leading results answer a tool_use
    for i, m in enumerate(msgs):
        ids = [b.get("id") for b in tool_uses(m)] if m.get("role") == "assistant" else []
        if not ids:
            continue
        if i + 1 >= len(msgs):
            found.append(Violation("P2", i,
                                   tr("tool_use {ids} has no message after it").format(ids=ids)))
            continue
        nxt = msgs[i + 1]
        if nxt.get("role") != "user":
            found.append(Violation("P2", i, tr("the message after tool_use {ids} is from {role!r}, "
                                               "not 'user'")
                                   .format(ids=ids, role=nxt.get("role"))))
            continue
        answered.add(i + 1)
        head = blocks(nxt)[: len(ids)]
        got = [b.get("tool_use_id") if b.get("type") == "tool_result" else f"<{b.get('type')}>"
               for b in head]
        if got != ids:
            wrong = tr("the first {count} blocks should be tool_result for {ids} in that order, "
                       "found {got}")
            found.append(Violation("P2", i, wrong.format(count=len(ids), ids=ids, got=got)))
    for i, m in enumerate(msgs):
        content = blocks(m)
        start = 0
        if i in answered:
            start = len(tool_uses(msgs[i - 1]))
        for j, b in enumerate(content[start:], start):
            if b.get("type") == "tool_result":
                stray = (tr("block {j} is a tool_result for {id!r} after the leading results")
                         if i in answered
                         else tr("block {j} is a tool_result for {id!r} without a tool_use right "
                                 "before it"))
                found.append(Violation("P3", i, stray.format(j=j, id=b.get("tool_use_id"))))
    # the earliest message first, P1 before P2 before P3
    return sorted(found, key=lambda v: (v.index, v.rule))


def check_invariant(messages: list, *, final_assistant: bool = False) -> None:
    """Raise AssertionError naming the first broken rule of P1-P3, if any."""
    found = violations(messages, final_assistant=final_assistant)
    if found:
        raise AssertionError(str(found[0]))
