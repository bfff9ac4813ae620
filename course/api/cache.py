"""Prompt caching: one object owns the cache, its lock and its clock.

A request's cache_control marks are breakpoints. The longest live cached prefix
is read; each breakpoint after it that is long enough for the model writes the
tokens between the previous one and itself; a read refreshes the entry's TTL.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable

from ..messages import content_blocks
from .models import Model
from .tokens import MESSAGE_OVERHEAD, REQUEST_OVERHEAD
from .toolset import loaded

TTL = {"5m": 300.0, "1h": 3600.0}  # seconds a cache entry lives after its last use
MAX_BREAKPOINTS = 4


def marks(body: dict) -> int:
    """How many tools, system blocks and message blocks carry a cache_control mark (in a valid
    body)."""
    system = body.get("system")
    marked = [
        *(body.get("tools") or []),
        *(system if isinstance(system, list) else []),
        *(b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]),
    ]
    return sum(1 for item in marked if item.get("cache_control"))


class PromptCache:
    """The cached prefixes of one local API: prefix hash -> when the entry expires."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock  # for expiry; tests pass a fake one
        self._lock = threading.Lock()
        self._expires: dict[str, float] = {}

    def use(self, body: dict, model: Model) -> tuple[dict[str, int], int]:
        """Tokens written per TTL, and tokens read, for the request's breakpoints."""
        written = {"5m": 0, "1h": 0}
        if not body.get("cache_control") and not marks(body):
            return written, 0  # no breakpoint: nothing is read or written
        points = breakpoints(body, model)
        with self._lock:
            now = self.clock()
            read = max((n for key, n, _ in points if self._expires.get(key, 0.0) > now), default=0)
            done = read
            for key, n, ttl in points:
                if n < model.cache_minimum:
                    continue  # too short: silently not cached
                if n > done:
                    written[ttl] += n - done
                    done = n
                self._expires[key] = now + TTL[ttl]  # a write, or a read refreshing the TTL
        return written, read


def breakpoints(body: dict, model: Model) -> list[tuple[str, int, str]]:
    """(hash of the prefix, its token count, ttl) at every cache_control mark, in prompt order.

    The prompt's order is tools, then system, then messages; a top-level
    cache_control (automatic caching) marks the end of the prompt.
    """
    count = model.tokenizer
    items: list = []
    points = []
    n = REQUEST_OVERHEAD

    def point(cache_control: dict):
        digest = hashlib.sha256(
            json.dumps([body["model"], items], sort_keys=True).encode()
        ).hexdigest()
        points.append((digest, n, cache_control.get("ttl", "5m")))

    def mark(item: dict, tokens: int):
        nonlocal n
        n += tokens
        items.append({k: v for k, v in item.items() if k != "cache_control"})
        if item.get("cache_control"):
            point(item["cache_control"])

    shown = loaded(body)  # a deferred tool costs nothing until a tool_reference loads it
    for t in body.get("tools") or []:
        mark(t, count.tool_tokens(t) if t in shown else 0)
    system = body.get("system") or []
    if isinstance(system, str):  # a plain string system prompt cannot carry a mark
        n += count.text_tokens(system)
        items.append(system)
    for b in system if isinstance(system, list) else []:
        mark(b, count.block_tokens(b))
    for m in body["messages"]:
        content = content_blocks(m["content"])
        n += MESSAGE_OVERHEAD
        items.append(m["role"])
        for b in content:
            mark(b, count.block_tokens(b))
    if body.get("cache_control"):
        point(body["cache_control"])
    return points
