"""Policies: toy models. A policy is any callable `policy(conversation) -> Turn`.

Like the real API, a policy is stateless: it sees only the request (the whole
conversation) and decides the next assistant turn from it, read as a model reads
it: the user's words without a harness's system messages and reminders, tools by
their role (`search`, whether the harness named it `search` or `mcp__course__search`).
"""
from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..i18n import tr
from ..messages import content_blocks
from .errors import APIError
from .toolset import REMINDER, TOOL_SEARCH, for_role, loaded, role

# the rest are the handler's to decide
CHOSEN_STOP_REASONS = {"end_turn", "tool_use", "pause_turn", "refusal"}


@dataclass
class Turn:
    """What the toy model says next: content blocks and, optionally, a forced stop reason.

    Without `stop_reason`, it is tool_use when the content has a tool_use block,
    else end_turn. max_tokens, stop_sequence and model_context_window_exceeded
    are decided by the handler from the request, never by the policy.
    """

    content: list[dict]
    stop_reason: str | None = None
    stop_details: dict | None = None


class Conversation:
    """A read-only view of one request, with the questions policies ask of it."""

    def __init__(self, body: dict):
        self.body = body
        searches = {b.get("id") for m in body["messages"] if m["role"] == "assistant"
                    for b in content_blocks(
            m["content"]) if b["type"] == "tool_use" and b["name"] == TOOL_SEARCH}
        self.messages: list[dict] = [m for m in (_as_read(m, searches) for m in body["messages"])
                                     if m is not None]

    @property
    def tool_names(self) -> list[str]:
        """The names of the tools the model can call now (deferred ones once loaded)."""
        return [t["name"] for t in loaded(self.body) if "name" in t]

    def tool(self, wanted: str) -> str | None:
        """The name of the callable tool whose role is `wanted` (`search`: `search` or
        `mcp__course__search`)."""
        return for_role(loaded(self.body), wanted)

    @functools.cached_property  # counted once: the policy and the handler both ask
    def calls_so_far(self) -> int:
        """How many assistant turns the conversation already holds (the 0-based index of this
        call)."""
        return sum(1 for m in self.messages if m["role"] == "assistant")

    @property
    def prompt(self) -> str:
        """The text of the first user message (the user's words, without reminders)."""
        return _text(self.messages[0])

    @property
    def request_at(self) -> int:
        """The index of the latest request: the last user message without tool results (the prompt,
        a follow-up question, feedback)."""
        return max(i for i, m in enumerate(self.messages)
                   if m["role"] == "user"
                   and not any(b["type"] == "tool_result" for b in m["content"]))

    @property
    def request(self) -> str:
        """The text of the latest request (the prompt, until the user asks something more)."""
        return _text(self.messages[self.request_at])

    @property
    def forced(self) -> bool:
        """Whether the request forces a tool call (tool_choice any or tool)."""
        return (self.body.get("tool_choice") or {}).get("type") in ("any", "tool")

    @property
    def constrained(self) -> bool:
        """Whether the request fixes the answer's shape: a forced tool, or output_config.format."""
        return self.forced or bool((self.body.get("output_config") or {}).get("format"))

    @property
    def last(self) -> dict:
        return self.messages[-1]

    def results(self) -> list[dict]:
        """tool_result blocks of the last user message (the answers to the previous turn)."""
        if self.last["role"] != "user":
            return []
        return [b for b in self.last["content"] if b["type"] == "tool_result"]

    def all_results(self) -> list[tuple[dict, dict]]:
        """Every (tool_use, tool_result) pair in the conversation, in order."""
        uses = {b["id"]: b for m in self.messages if m["role"] == "assistant"
                for b in m["content"] if b["type"] == "tool_use"}
        return [(uses[b["tool_use_id"]], b) for m in self.messages if m["role"] == "user"
                for b in m["content"] if b["type"] == "tool_result" and b["tool_use_id"] in uses]

    def result_text(self, result: dict) -> str:
        c = result.get("content", "")
        return c if isinstance(c, str) else "".join(
            b.get("text", "") for b in c if b.get("type") == "text")


def _text(message: dict) -> str:
    return "".join(b.get("text", "") for b in message["content"] if b["type"] == "text")


# how Claude Code hands a Stop hook's reason (/goal's "not yet") to the model
HOOK_FEEDBACK = "Stop hook feedback:\n"


def _hook_feedback(reminder: re.Match) -> str:
    """What the model reads of a reminder: nothing, unless it hands over a Stop hook's feedback (the
    reason /goal's evaluator gave), which the model must act on as a request."""
    text = reminder.group(0)
    return (
        text.split(HOOK_FEEDBACK, 1)[1].removesuffix("</system-reminder>").strip()
        if HOOK_FEEDBACK in text
        else ""
    )


def _as_read(message: dict, searches: set) -> dict | None:
    """A message as the model reads it: a string content as one text block, reminders taken out of
    the text, tool calls by role, the harness's tool searches (the calls in `searches` and their
    results) left out: loading a tool is not a step of the task, so a policy sees the conversation a
    client without tool search would send. None for a system message, or a message that held only
    reminders or tool searches."""
    if message["role"] == "system":
        return None
    content = message["content"]
    blocks = content_blocks(content)
    found = [b for b in blocks if b["type"] in ("tool_use", "tool_result")
             and b.get("id", b.get("tool_use_id"))
             in searches]
    if found and all(b["type"] not in ("tool_use", "tool_result") or b in found for b in blocks):
        # a tool search, or its results and what the harness says of them ("Tool loaded.")
        return None
    read = []
    for b in blocks:
        if any(b is f for f in found):
            continue
        if b["type"] == "text" and "<system-reminder>" in b["text"]:
            b = {**b, "text": REMINDER.sub(_hook_feedback, b["text"]).lstrip()}
            if not b["text"].strip():
                continue
        elif b["type"] == "tool_use" and role(b["name"]) != b["name"]:
            b = {**b, "name": role(b["name"])}
        read.append(b)
    if not read and blocks:
        return None
    return {**message, "content": read} if read != content else message


class Policy(Protocol):
    def __call__(self, conversation: Conversation, /) -> Turn: ...


@dataclass
class Scripted:
    """Turn k of the script answers the k-th call; after the script, `then` repeats."""

    turns: list[Turn]
    then: Turn | None = None

    def __call__(self, conversation: Conversation) -> Turn:
        k = conversation.calls_so_far
        if k < len(self.turns):
            return self.turns[k]
        if self.then is None:
            raise APIError(400, "invalid_request_error",
                           f"the scripted policy has only {len(self.turns)} turns; this is call "
                           f"{k + 1}")
        return self.then


@dataclass
class Rules:
    """The first rule whose condition holds decides the turn: rules over the conversation."""

    rules: list[tuple[Callable[[Conversation], bool], Callable[[Conversation], Turn]]]
    otherwise: Callable[[Conversation], Turn] | None = None

    def __call__(self, conversation: Conversation) -> Turn:
        for when, then in self.rules:
            if when(conversation):
                return then(conversation)
        if self.otherwise is None:
            raise APIError(400, "invalid_request_error",
                           "no rule of the policy matches this conversation")
        return self.otherwise(conversation)


@dataclass
class Replay:
    """Replays a recorded transcript (JSONL), checking that the conversation has not diverged.

    Each line is {"request": {"messages": [...]}, "response": {"content": [...], "stop_reason":
    ...}}. Call k must send the recorded messages of call k; otherwise the reply is a 400
    whose message says where the conversation left the recording.
    """

    steps: list[dict] = field(default_factory=list)

    @classmethod
    def load(cls, path: str | Path) -> Replay:
        """A transcript file (`course.scenarios.record.TRANSCRIPTS` holds those shipped with the
        course)."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls([json.loads(line) for line in lines if line.strip()])

    def __call__(self, conversation: Conversation) -> Turn:
        k = conversation.calls_so_far
        if k >= len(self.steps):
            raise APIError(400, "invalid_request_error",
                           tr("replay diverged: the recording has {recorded} calls; this is call "
                              "{call}").format(
                               recorded=len(self.steps), call=k + 1))
        recorded = self.steps[k]["request"]["messages"]
        sent = conversation.messages
        for i, (want, got) in enumerate(zip(recorded, sent, strict=False)):
            want = Conversation({"messages": [want]}).messages[0]
            if _comparable(want) != _comparable(got):
                why = tr("replay diverged at call {call}, messages.{i}: recorded {recorded}, sent "
                         "{sent}")
                raise APIError(400, "invalid_request_error",
                               why.format(call=k + 1, i=i, recorded=_shown(want), sent=_shown(got)))
        if len(recorded) != len(sent):
            raise APIError(400, "invalid_request_error",
                           tr("replay diverged at call {call}: recorded {recorded} messages, sent "
                              "{sent}").format(
                               call=k + 1, recorded=len(recorded), sent=len(sent)))
        response = self.steps[k]["response"]
        # max_tokens etc. come back by themselves from the same request
        stop = response.get("stop_reason")
        return Turn(response["content"], stop if stop in CHOSEN_STOP_REASONS else None,
                    response.get("stop_details"))


def _shown(message: dict) -> str:
    """A message as the divergence report shows it: JSON, with its characters as they are, cut at
    300."""
    return json.dumps(_comparable(message), ensure_ascii=False)[:300]


def _comparable(message: dict) -> dict:
    """A message without the fields that do not change its meaning (cache_control, is_error:
    false)."""
    keep = []
    for b in message["content"]:
        b = {k: v for k,
             v in b.items() if k != "cache_control" and not (k == "is_error" and v is False)}
        keep.append(b)
    return {"role": message["role"], "content": keep}
