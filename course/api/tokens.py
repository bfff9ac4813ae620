"""An approximate, documented token count: the `usage` the local API reports.

Real tokenizers are not public; the course needs a count that is deterministic,
monotone in the text and about the right size. The rule:

- a piece of text costs ceil(characters / 4) tokens (about 4 characters per
  English token), at least 1 for non-empty text;
- every message costs 4 tokens of framing and every block 3;
- tool_use input and tool definitions are counted as their compact JSON;
- a request costs 8 tokens on top (the turn separators).

It is additive over messages, as Def. 5.1 of the material assumes, so the
identities of Prop. 5.2 hold exactly on what the local API reports.
"""
from __future__ import annotations

import json
import math

REQUEST_OVERHEAD = 8
MESSAGE_OVERHEAD = 4
BLOCK_OVERHEAD = 3


def text_tokens(s: str) -> int:
    return math.ceil(len(s) / 4) if s else 0


COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, sort_keys=True)  # built once, used per block


def json_tokens(value) -> int:
    return text_tokens(COMPACT_JSON.encode(value))


def block_tokens(block) -> int:
    if isinstance(block, str):
        return BLOCK_OVERHEAD + text_tokens(block)
    kind = block.get("type")
    if kind == "text":
        body = text_tokens(block.get("text", ""))
    elif kind == "tool_use":
        body = text_tokens(block.get("name", "")) + json_tokens(block.get("input", {}))
    elif kind == "tool_result":
        content = block.get("content", "")
        body = text_tokens(content) if isinstance(content, str) else sum(map(block_tokens, content))
    else:  # images, documents, thinking...: counted by their JSON
        body = json_tokens({k: v for k, v in block.items() if k != "cache_control"})
    return BLOCK_OVERHEAD + body


def message_tokens(message: dict) -> int:
    content = message.get("content", [])
    if isinstance(content, str):
        content = [content]
    return MESSAGE_OVERHEAD + sum(map(block_tokens, content))


def fixed_tokens(body: dict) -> int:
    """s_0 of Def. 5.1: the system prompt and the tool definitions."""
    system = body.get("system") or ""
    n = text_tokens(system) if isinstance(system, str) else sum(block_tokens(b) for b in system)
    return n + sum(json_tokens({k: v for k, v in t.items() if k != "cache_control"}) for t in body.get("tools") or [])


def input_tokens(body: dict) -> int:
    """n_k: what one request costs in input tokens."""
    return REQUEST_OVERHEAD + fixed_tokens(body) + sum(map(message_tokens, body.get("messages", [])))


def output_tokens(content: list[dict]) -> int:
    """What the assistant message costs in output tokens (no framing)."""
    return sum(block_tokens(b) - BLOCK_OVERHEAD for b in content)
