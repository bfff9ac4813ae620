"""Lesson 10, managing the context: clear old tool results without breaking P1-P3, and what caching saves.

clear_old_results(messages, keep, placeholder) -> list
  a new message list in which every tool_result except those of the last `keep` turns has its content
  replaced by `placeholder`; blocks, ids, is_error, text and tool_use blocks stay as they are.
cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024) -> (without_usd, with_usd)
  the input cost of resending a fixed prefix on `calls` calls at price_in USD per million tokens,
  without caching, and with a 5-minute cache (written on the first call, read after); a prefix below
  min_cacheable tokens is silently not cached.
"""
from __future__ import annotations

import math

from ...api import APIError
from ...api.tokens import input_tokens
from ...api.validate import validate_request
from ...client import MODEL
from ...i18n import deferred, tr
from ...messages import assistant, text, tool_result, tool_use, user, violations
from ...pricing import CACHE_READ, CACHE_WRITE_5M
from ..exercise import Check, CheckFailed, Exercise
from .common import content, expect, returned, shown

DROPPED = deferred("deleting old result blocks: every tool_use still needs its tool_result (P2); replace the content "
                   "instead")
TOO_MUCH = deferred("clearing more than the old results: tool_use blocks, text and the last turns stay as they are")
COUNT_KEEP = deferred("counting `keep` in messages or blocks: it counts turns (user messages holding results)")
WRITE_PRICE = deferred("pricing the cache write like a plain input: a 5-minute write costs 1.25x")
READ_PRICE = deferred("pricing cache reads like plain input: a read costs 0.1x")
TOO_SMALL = deferred("caching a prefix below the minimum: it is silently not cached, so nothing changes")

LOG = "2026-10-07 api request ok\n" * 200
PLACEHOLDER = "[old tool result cleared]"


def history() -> list:
    """Three tool-use turns (the second with two calls and a note), then the current request."""
    return [user("Why did the API slow down on Monday?"),
            assistant("Fetching the logs.", tool_use("t1", "fetch_log", {"service": "api"})),
            user(tool_result("t1", LOG)),
            assistant(tool_use("t2", "fetch_log", {"service": "worker"}),
                      tool_use("t3", "fetch_log", {"service": "db"})),
            user(tool_result("t2", LOG), tool_result("t3", "no such service", is_error=True), text("Focus on Monday.")),
            assistant(tool_use("t4", "grep", {"pattern": "slow"})),
            user(tool_result("t4", "12 matches"))]


def expected(keep: int) -> list:
    result_turns = [i for i, m in enumerate(history()) if any(b["type"] == "tool_result" for b in m["content"])]
    old = set(result_turns[:max(len(result_turns) - keep, 0)])
    return [{**m, "content": [{**b, "content": PLACEHOLDER} if i in old and b["type"] == "tool_result" else b
                              for b in m["content"]]} for i, m in enumerate(history())]


def results_in(messages: list) -> int:
    return sum(b.get("type") == "tool_result" for m in messages for b in content(m))


def deleted(messages: list) -> str:
    """DROPPED when the list holds fewer tool_result blocks than the history it was made from."""
    return DROPPED if results_in(messages) < results_in(history()) else ""


def without_result_content(blocks: list) -> list:
    return [{k: v for k, v in b.items() if not (b.get("type") == "tool_result" and k == "content")} for b in blocks]


def outside_results(got: list, want: list) -> bool:
    """The blocks differ somewhere other than a tool_result's content (text, tool_use, ids, is_error)."""
    return without_result_content(got) != without_result_content(want)


def clearing(ctx) -> None:
    for keep in (1, 0, 3, 5):
        out = ctx.call(history(), keep, PLACEHOLDER)
        returned(out)
        got = out.value if isinstance(out.value, list) else []
        body = {"model": MODEL, "max_tokens": 100, "messages": got}
        try:
            validate_request(body)
        except APIError as e:
            raise CheckFailed(tr("keep={keep}: the API rejects the cleared list: {message}").format(
                keep=keep, message=e.message), deleted(got)) from None
        found = violations(got)
        expect(not found, tr("keep={keep}: {violation}").format(keep=keep, violation=found[0] if found else ""),
               deleted(got))
        want = expected(keep)
        expect(len(got) == len(want),
               tr("keep={keep}: {got} messages, expected {want}").format(keep=keep, got=len(got), want=len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            expect(content(g) == w["content"],
                   tr("keep={keep}: messages[{i}] is {got}, expected {want}").format(
                       keep=keep, i=i, got=content(g), want=w["content"])[:400],
                   TOO_MUCH if outside_results(content(g), w["content"]) else "")
    saved = input_tokens({"messages": history()}) - input_tokens({"messages": expected(1)})
    expect(saved > 0, tr("clearing saves no tokens"))  # holds for the data above: the logs are large


def caching(ctx) -> None:
    for prefix, calls, price in ((50_000, 10, 3.0), (20_000, 1, 1.0), (8_000, 40, 5.0)):
        out = ctx.call(prefix, calls, price)
        returned(out)
        plain = calls * prefix * price / 1e6
        cached = prefix * price / 1e6 * (CACHE_WRITE_5M + CACHE_READ * (calls - 1))
        got = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
        why = tr("cache_costs({prefix}, {calls}, {price}) returned {got}; expected ({plain:.6f}, {cached:.6f})").format(
            prefix=prefix, calls=calls, price=price, got=shown(out.value), plain=plain, cached=cached)
        expect(got[0] is not None and math.isclose(got[0], plain, rel_tol=1e-9), why)
        usd = prefix * price / 1e6
        known = {WRITE_PRICE: usd * (1 + CACHE_READ * (calls - 1)), READ_PRICE: usd * (CACHE_WRITE_5M + calls - 1)}
        expect(got[1] is not None and math.isclose(got[1], cached, rel_tol=1e-9), why,
               next((tr(h) for h, v in known.items() if isinstance(got[1], (int, float)) and math.isclose(got[1], v)),
                    ""))
    out = ctx.call(900, 10, 3.0)
    returned(out)
    got = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    small = 900 * 3.0 / 1e6
    expect(all(v is not None and math.isclose(v, 10 * small, rel_tol=1e-9) for v in got),
           tr("cache_costs(900, 10, 3.0) returned {got}; a 900-token prefix is not cached").format(
               got=shown(out.value)),
           TOO_SMALL if isinstance(got[1], (int, float))
           and math.isclose(got[1], small * (CACHE_WRITE_5M + 9 * CACHE_READ)) else "")
    out = ctx.call(2_000, 10, 3.0, min_cacheable=4_096)
    returned(out)
    got = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    plain = 10 * 2_000 * 3.0 / 1e6
    expect(all(v is not None and math.isclose(v, plain, rel_tol=1e-9) for v in got),
           tr("cache_costs(2000, 10, 3.0, min_cacheable=4096) returned {got}; a prefix below the minimum given is not "
              "cached: expected ({plain:.6f}, {plain:.6f})").format(got=shown(out.value), plain=plain))


EXERCISES = [
    Exercise("clear_old_results", "clear_old_results", deferred("Clearing old tool results"), [
        Check(deferred("old results cleared, the last turns kept, P1-P3 and the API still happy"), clearing),
    ], notebook="solutions/10_managing_the_context.ipynb"),
    Exercise("cache_costs", "cache_costs", deferred("What a prompt cache saves"), [
        Check(deferred("a write at 1.25x, reads at 0.1x, prefixes below min_cacheable not cached"), caching),
    ], notebook="solutions/10_managing_the_context.ipynb"),
]
