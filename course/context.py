"""Context growth, budgets and managing the context (the Model's Sec. 5).

Arithmetic of Prop. 5.2 and 5.4 on plain numbers, the same identities read from
what the API reports (`usage`), and three ways to send less: clearing old tool
results, compaction, and prompt caching with its economics.

The two editors (`clear_tool_results`, `compact`) take a message list and return
a new one that still satisfies the pairing invariant P1-P3; `EditedClient` applies
an editor to every request a loop sends, while the loop keeps its full history
(as the API's server-side context editing does).
"""
from __future__ import annotations

import copy
import itertools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass

from .api import tokens
from .i18n import deferred, tr
from .messages import blocks, text, tool_uses, user
from .pricing import CACHE_READ, CACHE_WRITE_5M, prices

# said in the language the course speaks
CLEARED = deferred("[tool result cleared to save context]")


# --- Prop. 5.2: input grows linearly per call, quadratically in total ----------------------

def inputs_per_call(s: int, turn_sizes: list[int]) -> list[int]:
    """n_k = s + sum_{i<k} (a_i + r_i) for k = 1 .. len(turn_sizes)+1 (Prop. 5.2 (1))."""
    ns = [s]
    for d in turn_sizes:
        ns.append(ns[-1] + d)
    return ns


def total_lower_bound(K: int, s: int, c: int) -> int:
    """K s + c K (K-1) / 2: the least total input of K calls when every turn adds >= c (Prop. 5.2
    (2))."""
    return K * s + c * K * (K - 1) // 2


def window_bound(W: int, s: int, c: int) -> int:
    """The most calls that fit a window of W tokens when every turn adds >= c: floor((W-s)/c) + 1
    (Prop. 5.2 (3)), and 0 when not even the first call fits (s > W)."""
    return max(0, (W - s) // c + 1)


def reported_inputs(usages: list[dict]) -> list[int]:
    """n_k as the API reports it: input_tokens plus the cached parts (written and read)."""
    return [u["input_tokens"] + (u.get("cache_creation_input_tokens") or 0) + (u.get(
        "cache_read_input_tokens") or 0)
            for u in usages]


def turn_sizes(messages: list) -> list[int]:
    """a_i + r_i for each tool-use turn of a history (local API token counts, Def. 5.1)."""
    return [tokens.message_tokens(a) + tokens.message_tokens(b)
            for a, b in zip(messages[1::2], messages[2::2], strict=False) if tool_uses(a)]


# --- Prop. 5.4: a budget checked after each response ----------------------------------------

def costs(sequence: list[float]) -> Callable[[str, object], float]:
    """A cost function for `Agent(cost=...)`: the k-th response costs sequence[k-1] (the last one
    repeats)."""
    count = itertools.count()
    return lambda model, usage: sequence[min(next(count), len(sequence) - 1)]


def max_calls_for_budget(budget: float, c_min: float) -> int:
    """ceil(B / c_min): the most calls a budget allows when every response costs >= c_min (Prop. 5.4
    (3))."""
    return math.ceil(budget / c_min)


# --- Clearing old tool results and compaction --------------------------------------------

def clear_tool_results(messages: list, keep_last: int = 1, placeholder: str | None = None) -> list:
    """A copy of `messages` whose tool results older than the last `keep_last` turns say
    `placeholder` (by default CLEARED, in the language the course speaks).

    The tool_result blocks stay (same ids, same places), so P1-P3 still hold;
    only their content goes. The model can call the tool again if it needs it.
    """
    placeholder = tr(CLEARED) if placeholder is None else placeholder
    out = copy.deepcopy(list(messages))
    answered = [i + 1 for i, m in enumerate(out[:-1]) if m["role"] == "assistant" and tool_uses(m)]
    for i in answered[: max(0, len(answered) - keep_last)]:
        out[i] = {**out[i],
                  "content": [{**b, "content": placeholder} if b.get("type") == "tool_result" else b
                                        for b in blocks(out[i])]}
    return out


def summary(messages: list) -> str:
    """A short extractive summary of a history: the task, then one line per tool call and its
    result."""
    task = "".join(b.get("text", "") for b in blocks(messages[0]) if b.get("type") == "text")
    lines = [tr("Summary of the work so far."), tr("Task: {task}").format(task=task)]
    results = {b["tool_use_id"]: b for m in messages if m["role"] == "user" for b in blocks(m)
               if b.get("type") == "tool_result"}
    for m in messages:
        for u in tool_uses(m) if m["role"] == "assistant" else []:
            r = results.get(u["id"], {})
            content = r.get("content", "")
            content = content if isinstance(content, str) else json.dumps(content)
            lines.append(tr("- {call} -> {status}: {content}").format(
                call=f"{u['name']}({json.dumps(u['input'], sort_keys=True)})",
                status=tr("error") if r.get("is_error") else tr("ok"),
                content=" ".join(content.split())[:80]))
    return "\n".join(lines)


def compact(messages: list, keep_last: int = 1, summarize: Callable[[list], str] = summary) -> list:
    """Replace everything before the last `keep_last` turns by one user message holding a summary.

    The kept turns start with an assistant message, so the summary (a user
    message) keeps the roles alternating; the result satisfies P1-P3.
    """
    msgs = list(messages)
    start = len(msgs) - 2 * keep_last if keep_last else len(msgs)
    if start <= 1:  # nothing older than the kept turns
        return copy.deepcopy(msgs)
    older, kept = msgs[:start], msgs[start:]
    if kept and kept[0]["role"] != "assistant":
        raise ValueError("compact() expects a history of the loop: user, then (assistant, user) "
                         "pairs")
    return [user(text(summarize(older)))] + copy.deepcopy(kept)


@dataclass
class EditedClient:
    """A client whose `messages.create` edits the request first (e.g. clears old tool results).

    Give it to `Agent(client=...)`: the loop keeps its full history, the model
    sees the edited one.
    """

    client: object
    edit: Callable[[dict], dict]  # request keyword arguments -> edited ones

    @property
    def messages(self) -> EditedClient:
        return self

    def create(self, **request):
        return self.client.messages.create(**self.edit(request))


def editing_messages(editor: Callable[[list], list]) -> Callable[[dict], dict]:
    """A request edit that applies a message editor (clear_tool_results, compact) to `messages`."""
    return lambda request: {**request, "messages": editor(request["messages"])}


# --- Prompt caching ------------------------------------------------------------------------

EPHEMERAL = {"type": "ephemeral"}


def mark_for_caching(request: dict) -> dict:
    """The request with cache_control on the system prompt and on the last block of the last two
    user messages.

    The older mark finds the prefix cached by the previous call (a read); the
    newer one caches this call's prefix for the next (a write).
    """
    request = copy.deepcopy(request)
    if request.get("system"):
        system = request["system"]
        system = [text(system)] if isinstance(system, str) else system
        system[-1] = {**system[-1], "cache_control": EPHEMERAL}
        request["system"] = system
    for m in [m for m in request["messages"] if m["role"] == "user"][-2:]:
        content = blocks(m)
        content[-1] = {**content[-1], "cache_control": EPHEMERAL}
        m["content"] = content
    return request


def cached_cost(calls: int, prefix_tokens: int, price_in: float, write: float = CACHE_WRITE_5M,
                read: float = CACHE_READ) -> float:
    """USD for sending the same prefix in `calls` calls with caching: one write, then reads."""
    return prefix_tokens * price_in * (write + read * (calls - 1)) / 1_000_000


def uncached_cost(calls: int, prefix_tokens: int, price_in: float) -> float:
    """USD for sending the same prefix in `calls` calls without caching."""
    return prefix_tokens * price_in * calls / 1_000_000


def break_even_calls(write: float = CACHE_WRITE_5M, read: float = CACHE_READ) -> int:
    """The fewest calls for which caching a prefix costs less than not caching it.

    write + read (n-1) < n  <=>  n > (write - read) / (1 - read).
    """
    return math.floor((write - read) / (1 - read)) + 1


def loop_input_cost(inputs: list[int], model: str, cached: bool, minimum: int = 0,
                    write: float = CACHE_WRITE_5M, read: float = CACHE_READ) -> float:
    """USD of the input side of a loop whose k-th call sends inputs[k-1] tokens.

    Cached: call k reads the previous call's prompt (if it was cached) and
    writes the rest; a prompt shorter than `minimum` is silently not cached
    and pays the full price. Uncached: every token at the full input price.
    """
    price_in = prices(model)[0]
    units = 0.0
    previous = 0  # tokens of the prefix in the cache
    for n in inputs:
        if not cached or n < minimum:
            units += n
            continue
        units += read * previous + write * (n - previous)
        previous = n
    return units * price_in / 1_000_000
