"""An approximate, documented token count: the `usage` the local API reports.

Real tokenizers are not public; the course needs a count that is deterministic,
monotone in the text and about the right size. The rule:

- a piece of text costs ceil(characters / 4 x factor) tokens: about 4 characters
  per English token for Haiku 4.5 (factor 1.0), and about 30% more tokens for
  the 5.x generation's tokenizer (factor 1.3, the default); at least 1 for
  non-empty text;
- every message costs 4 tokens of framing and every block 3;
- tool_use input and tool definitions are counted as their compact JSON; a deferred tool
  (`defer_loading: true`) only once a tool_reference has loaded it;
- a request costs 8 tokens on top (the turn separators).

It is additive over messages, as Def. 5.1 of the material assumes, so the
identities of Prop. 5.2 hold exactly on what the local API reports.
"""
from __future__ import annotations

import json

from .toolset import loaded

REQUEST_OVERHEAD = 8
MESSAGE_OVERHEAD = 4
BLOCK_OVERHEAD = 3
CURRENT_FACTOR = 1.3  # the current generation's tokenizer (5.x), relative to Haiku 4.5's

# built once, used per block
COMPACT_JSON = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, sort_keys=True)


class Tokenizer:
    """The counting rule for one tokenizer factor (integer arithmetic: the same count on every
    machine)."""

    def __init__(self, factor: float = CURRENT_FACTOR):
        self.factor = factor
        self._per_4000 = round(factor * 1000)  # tokens per 4,000 characters, in thousandths

    def text_tokens(self, s: str) -> int:
        return -(-len(s) * self._per_4000 // 4000) if s else 0

    def json_tokens(self, value) -> int:
        return self.text_tokens(COMPACT_JSON.encode(value))

    def block_tokens(self, block) -> int:
        if isinstance(block, str):
            return BLOCK_OVERHEAD + self.text_tokens(block)
        kind = block.get("type")
        if kind == "text":
            body = self.text_tokens(block.get("text", ""))
        elif kind == "tool_use":
            body = self.text_tokens(block.get("name", "")) + self.json_tokens(
                block.get("input", {})
            )
        elif kind == "tool_result":
            content = block.get("content", "")
            body = self.text_tokens(content) if isinstance(content, str) else sum(
                map(self.block_tokens, content))
        elif kind == "thinking":  # the summary the client sees; the signature is not counted
            body = self.text_tokens(block.get("thinking", ""))
        else:  # images, documents, search results...: counted by their JSON
            body = self.json_tokens({k: v for k, v in block.items() if k != "cache_control"})
        return BLOCK_OVERHEAD + body

    def message_tokens(self, message: dict) -> int:
        content = message.get("content", [])
        if isinstance(content, str):
            content = [content]
        return MESSAGE_OVERHEAD + sum(map(self.block_tokens, content))

    def tool_tokens(self, tool: dict) -> int:
        return self.json_tokens({k: v for k, v in tool.items() if k != "cache_control"})

    def fixed_tokens(self, body: dict) -> int:
        """s_0 of Def. 5.1: the system prompt and the definitions of the tools the model can call
        now."""
        system = body.get("system") or ""
        n = self.text_tokens(system) if isinstance(system, str) else sum(
            map(self.block_tokens, system))
        return n + sum(map(self.tool_tokens, loaded(body)))

    def input_tokens(self, body: dict) -> int:
        """n_k: what one request costs in input tokens."""
        return REQUEST_OVERHEAD + self.fixed_tokens(body) + sum(
            map(self.message_tokens, body.get("messages", [])))

    def output_tokens(self, content: list[dict]) -> int:
        """What the assistant message costs in output tokens (no framing)."""
        return sum(self.block_tokens(b) - BLOCK_OVERHEAD for b in content)


CURRENT = Tokenizer()  # the counts of the current generation, which the course's default model uses
text_tokens = CURRENT.text_tokens
json_tokens = CURRENT.json_tokens
block_tokens = CURRENT.block_tokens
message_tokens = CURRENT.message_tokens
fixed_tokens = CURRENT.fixed_tokens
input_tokens = CURRENT.input_tokens
output_tokens = CURRENT.output_tokens
