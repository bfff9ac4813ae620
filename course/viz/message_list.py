"""The message-list view: roles, blocks, tool_use and tool_result linked by id,
is_error marked, and broken rules of the pairing invariant P1-P3 named.

`MessageList(messages)` displays itself in a notebook (`_repr_html_`) and as
plain text (`repr`); both are deterministic, so nbval can compare them.
"""
from __future__ import annotations

import json

from ..i18n import deferred, tr, tr_plural
from ..messages import as_dict, blocks, tool_uses, violations
from .style import ERROR, FONT, LINE, MUTED, OK, PALETTE, esc, ink, shorten, tag

# The pairing invariant of Def. 3.3, one line per rule (shown translated: `tr(RULES[rule])`).
RULES = {
    "P1": deferred("the list starts with a user message and ends with one"),
    "P2": deferred("each tool_use is answered, in order, by tool_result blocks leading the next "
                   "user message"),
    "P3": deferred("a tool_result appears nowhere else"),
}
ROLE_COLOURS = {"user": "#455A64", "assistant": "#6A1B9A"}
SHOWN_INPUT, SHOWN_RESULT = 400, 400  # characters shown before "show all"


class Links:
    """Which tool_use each tool_result answers: a number and a colour per id, in order of
    appearance."""

    def __init__(self, messages: list[dict]):
        # None: a block without its id (a view shows wrong messages too)
        self.number: dict[str | None, int] = {}
        self.name: dict[str | None, str] = {}
        for m in messages:
            for b in blocks(m):
                key = b.get("id") if b.get("type") == "tool_use" else b.get("tool_use_id")
                if b.get("type") in ("tool_use", "tool_result") and key not in self.number:
                    self.number[key] = len(self.number) + 1
                if b.get("type") == "tool_use":
                    self.name.setdefault(b.get("id"), b.get("name", "?"))

    def colour(self, id: str) -> str:
        return PALETTE[(self.number[id] - 1) % len(PALETTE)]

    def label(self, id: str) -> str:
        return f"#{self.number[id]}"


def unpaired(messages: list[dict], i: int, block: dict) -> str | None:
    """Why this tool_use or tool_result has no partner right next to it, or None when it has one."""
    if block.get("type") == "tool_use":
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        answers = (
            [b.get("tool_use_id") for b in blocks(nxt)] if nxt and nxt.get("role") == "user" else []
        )
        return None if block.get("id") in answers else tr("no tool_result in the next user message")
    if block.get("type") == "tool_result":
        prev = messages[i - 1] if i > 0 else None
        asked = (
            [u.get("id") for u in tool_uses(prev)]
            if prev and prev.get("role") == "assistant"
            else []
        )
        return None if block.get("tool_use_id") in asked else tr("no tool_use with this id in the "
                                                                 "message before")
    return None


def longer(text: str, shown: int) -> str:
    """A block's text on lines of its own, whitespace kept; past `shown` characters the rest opens
    on a click."""
    style = "white-space:pre-wrap;margin:1px 0 1px 8px"
    if len(text) <= shown:
        return f'<div style="{style}">{esc(text)}</div>'
    rest = tr("… show all {count:,} characters").format(count=len(text))
    return (f'<div style="{style}">{esc(text[:shown])}<details style="display:inline"><summary '
            'style="cursor:pointer;'
            f'color:{ink(MUTED)}">{esc(rest)}</summary>'
            f'{esc(text[shown:])}</details></div>')


def input_html(input) -> str:
    """A tool_use input, one argument a line; a string argument as it is (its spaces and newlines
    kept)."""
    if not isinstance(input, dict) or not input:
        return longer(json.dumps(input, ensure_ascii=False), SHOWN_INPUT)
    lines = []
    for key, value in sorted(input.items()):
        text = value if isinstance(value, str) else json.dumps(
            value, ensure_ascii=False, sort_keys=True)
        lines.append('<div><span '
                     f'style="color:{ink(MUTED)}">{esc(key)}:</span>{longer(text, SHOWN_INPUT)}</'
                     'div>')
    return "".join(lines)


def result_text(block: dict) -> str:
    """A tool_result's content as text (a string or a list of text blocks)."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")


class MessageList:
    """A view of a message list; `pending` is a response whose tools have not run (yet, or ever)."""

    def __init__(self, messages: list, *, final_assistant: bool = False,
                 pending: dict | None = None, pending_note: str | None = None):
        """`pending_note` says why the pending response's tools did not run (by default: not yet, or
        ever)."""
        self.messages = [as_dict(m) for m in messages]
        self.pending = as_dict(pending) if pending is not None else None
        self.pending_note = (
            tr("response received; its tools have not run")
            if pending_note is None
            else pending_note
        )
        self.violations = violations(self.messages, final_assistant=final_assistant)
        self.links = Links(self.messages + ([self.pending] if self.pending else []))

    @classmethod
    def of(cls, result) -> MessageList:
        """The messages of a finished run (a course.loop Result), which may end with the final
        answer."""
        return cls(result.messages, final_assistant=True)

    @property
    def holds(self) -> bool:
        return not self.violations

    # --- plain text
    # -----------------------------------------------------------------------------------
    def block_text(self, i: int, b: dict) -> str:
        kind = b.get("type")
        if kind == "text":
            return f"text {json.dumps(shorten(b.get('text', ''), 80), ensure_ascii=False)}"
        if kind == "tool_use":
            args = json.dumps(b.get("input"), ensure_ascii=False, sort_keys=True)
            line = (f"tool_use {self.links.label(b['id'])} {b.get('name')} {shorten(args, 80)} "
                    f"id={b['id']}")
        elif kind == "tool_result":
            error = " is_error" if b.get("is_error") else ""
            body = json.dumps(shorten(result_text(b), 80), ensure_ascii=False)
            line = (f"tool_result {self.links.label(b['tool_use_id'])}{error} {body} for "
                    f"id={b['tool_use_id']}")
        else:
            return f"{kind}"
        problem = unpaired(self.messages, i, b) if i >= 0 else None
        return line + (f"  <- {problem}" if problem else "")

    def __repr__(self) -> str:
        state = tr("P1-P3 hold") if self.holds else tr("broken: {rules}").format(
            rules=", ".join(sorted({v.rule for v in self.violations})))
        lines = [tr_plural("MessageList: {count} message, {state}",
                           "MessageList: {count} messages, {state}",
                           len(self.messages)).format(count=len(self.messages), state=state)]
        for i, m in enumerate(self.messages):
            if not blocks(m):
                lines.append(f"[{i}] {m.get('role')}: " + tr("(no content)"))
            for j, b in enumerate(blocks(m)):
                head = f"[{i}] {m.get('role')}:" if j == 0 else " " * len(f"[{i}] {m.get('role')}:")
                lines.append(f"{head} {self.block_text(i, b)}")
        if self.pending:
            lines.append(f"[pending] {self.pending_note}:")
            lines += [f"  {self.block_text(-1, b)}" for b in blocks(self.pending)]
        lines += ["! " + tr("{rule} ({meaning}) broken at messages[{index}]: {detail}").format(
            rule=v.rule, meaning=tr(RULES[v.rule]), index=v.index, detail=v.detail)
                  for v in self.violations]
        return "\n".join(lines)

    # --- HTML
    # -----------------------------------------------------------------------------------------
    def block_html(self, i: int, b: dict) -> str:
        kind = b.get("type")
        if kind == "text":
            return (f'<div style="margin:2px 0;white-space:pre-wrap">'
                    f'{tag("text", MUTED, filled=False)} {esc(b.get("text", ""))}</div>')
        if kind not in ("tool_use", "tool_result"):
            return f'<div style="margin:2px 0">{tag(str(kind), MUTED, filled=False)}</div>'
        id = b["id"] if kind == "tool_use" else b["tool_use_id"]
        colour = self.links.colour(id)
        # spaced: read as words
        head = f"{tag(self.links.label(id), colour)} {tag(kind, colour, filled=False)} "
        if kind == "tool_use":
            head += f"<b>{esc(b.get('name'))}</b>"
            body = input_html(b.get("input"))
        else:
            asked = self.links.name.get(id)
            head += esc(tr("answers {tool}").format(tool=asked)) if asked else ""
            if b.get("is_error"):
                head += " " + tag("is_error", ERROR)
            body = longer(result_text(b), SHOWN_RESULT)
        problem = unpaired(self.messages, i, b) if i >= 0 else None
        warn = (
            f' <span style="color:{ink(ERROR)};font-weight:bold">⚠ {esc(problem)}</span>'
            if problem
            else ""
        )
        ident = f' <span style="color:{ink(MUTED)}">id={esc(id)}</span>'
        return ('<div style="margin:2px 0;padding:2px 4px;border-left:6px solid '
                f'{colour};background:{colour}14">'
                f"<div>{head}{ident}{warn}</div>{body}</div>")

    def message_html(self, i: int, m: dict) -> str:
        role = m.get("role", "?")
        broken = [v for v in self.violations if v.index == i]
        frame = f"border:2px solid {ERROR}" if broken else "border:1px solid #ddd"
        note = tr("{rule} broken: {detail}")
        notes = "".join(f'<div style="color:{ink(ERROR)};font-weight:bold">✗ '
                        f'{esc(note.format(rule=v.rule, detail=v.detail))}</div>' for v in broken)
        body = "".join(self.block_html(i, b) for b in blocks(m))
        return (f'<div style="{frame};border-radius:4px;margin:4px 0;padding:3px 6px">'
                f'<div>{tag(f"[{i}] {role}", ROLE_COLOURS.get(role, MUTED))}</div>{notes}{body}</'
                'div>')

    def summary_html(self) -> str:
        if self.holds:
            holds = tr_plural("✓ pairing invariant P1–P3 holds ({count} message)",
                              "✓ pairing invariant P1–P3 holds ({count} messages)",
                              len(self.messages)).format(count=len(self.messages))
            return f'<div style="color:{ink(OK)}">{esc(holds)}</div>'
        broken = tr("<b>{rule}</b> ({meaning}) broken at messages[{index}]: {detail}")
        items = "".join("<li>" + broken.format(rule=v.rule, meaning=esc(tr(RULES[v.rule])),
                                               index=v.index,
                                               detail=esc(v.detail)) + "</li>"
                        for v in self.violations)
        headline = tr("✗ pairing invariant broken")
        return (f'<div style="color:{ink(ERROR)}"><b>{esc(headline)}</b>'
                f'<ul style="margin:2px 0">{items}</ul></div>')

    def _repr_html_(self) -> str:
        parts = [self.summary_html()] + [self.message_html(i, m) for i,
                                         m in enumerate(self.messages)]
        if self.pending:
            body = "".join(self.block_html(-1, b) for b in blocks(self.pending))
            parts.append(f'<div style="border:1px dashed {MUTED};border-radius:4px;margin:4px 0;'
                         'padding:3px 6px">'
                         f'<div>{tag(self.pending.get("role", "assistant"), MUTED)} '
                         f'<i>{esc(self.pending_note)}</i></div>{body}</div>')
        return f'<div class="course-messages" style="{FONT};{LINE}">{"".join(parts)}</div>'
