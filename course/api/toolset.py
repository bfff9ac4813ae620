"""The tools a request offers the model: the declared ones, less those deferred (`defer_loading:
true`) that no `tool_reference` has loaded yet, each known by its role.

A harness that declares many tools defers most of them: either in `tools` with `defer_loading:
true`, or only by name, one a line, in a system message (Claude Code announces an in-process MCP
tool, `mcp__course__search`, so). Either way the model must call the harness's `ToolSearch`
(`{"query": "select:mcp__course__search"}`), whose tool_result holds a `tool_reference` block,
before the tool can be called. A tool's role is its name without the MCP prefix: `search` is the
tool named `search` or ending in `__search`.
"""
from __future__ import annotations

import re

from ..messages import content_blocks

TOOL_SEARCH = "ToolSearch"  # Claude Code's client-side tool search: its results load deferred tools
# the tool Claude Code declares for the Agent SDK's output_format: the final answer is a call to it,
# with the schema's value as its input (its description: "You MUST call this tool exactly once at
# the end of your response")
STRUCTURED_OUTPUT = "StructuredOutput"


def role(name: str) -> str:
    """What a tool does, whoever hosts it: `mcp__course__search` -> `search`."""
    return name.rsplit("__", 1)[-1]


def referenced(body: dict) -> set[str]:
    """The tools loaded by a tool_reference block in some tool_result of the request."""
    return {
        ref["tool_name"]
        for m in body.get("messages") or []
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result" and isinstance(b.get("content"), list)
        for ref in b["content"]
        if isinstance(ref, dict) and ref.get("type") == "tool_reference"
    }


NAME_LINE = re.compile(r"^[A-Za-z0-9_-]{1,64}$", re.M)  # a line that is only a tool's name
# what a harness adds to a user's words
REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def harness_text(body: dict) -> str:
    """What the harness (not the user) says: the system prompt, system messages, system
    reminders."""
    system = body.get("system") or ""
    parts = [system] if isinstance(system, str) else [b.get("text", "") for b in system]
    for m in body.get("messages") or []:
        for b in content_blocks(m.get("content")) or []:
            if b.get("type") == "text":
                parts += [b["text"]] if m["role"] == "system" else REMINDER.findall(b["text"])
    return "\n".join(parts)


def announced(body: dict) -> list[dict]:
    """Tools the harness names, one a line, in its own text without declaring them: deferred until
    loaded."""
    return [{"name": n} for n in dict.fromkeys(NAME_LINE.findall(harness_text(body)))]


def loaded(body: dict) -> list[dict]:
    """The declared tools the model can call now: not deferred, or deferred and referenced since."""
    refs = referenced(body)
    return [t for t in body.get("tools") or [] if not t.get("defer_loading")
            or t.get("name") in refs]


def unloaded(body: dict) -> list[dict]:
    """The deferred tools no tool_reference has loaded yet (declared so, or only announced): the
    model knows only their names."""
    refs, tools = referenced(body), body.get("tools") or []
    declared = {t.get("name") for t in tools}
    return [t for t in tools if t.get("defer_loading") and t.get("name") not in refs] + [
        t for t in announced(body) if t["name"] not in declared | refs]


def for_role(tools: list[dict], wanted: str) -> str | None:
    """The name of the first tool in `tools` whose name is `wanted` or whose role is `wanted`."""
    names = [t["name"] for t in tools if "name" in t]
    return next((n for n in names if n == wanted), None) or next(
        (n for n in names if role(n) == wanted), None)
