"""Lesson 10, managing the context: clear old tool results without breaking P1-P3, and what caching
saves.

clear_old_results(messages, keep, placeholder) -> list
  a new message list in which every tool_result except those of the last `keep` turns has its
  content replaced by `placeholder`; blocks, ids, is_error, text and tool_use blocks stay as they
  are.
cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024) -> (without_usd, with_usd)
  the input cost of resending a fixed prefix on `calls` calls at price_in USD per million tokens,
  without caching, and with a 5-minute cache (written on the first call, read after); a prefix below
  min_cacheable tokens is silently not cached.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/10_...) on
generated cases.
"""
from __future__ import annotations

from ....api.models import MODELS
from ....i18n import deferred, tr, tr_plural
from ....messages import assistant, text, tool_result, tool_use, user
from ....pricing import price
from ..oracle import Case, Rule, canonical, describe, difference, exercise

NOTEBOOK = "solutions/10_managing_the_context.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l10_*), named only when a student's function
# does exactly that
DROPPED = deferred("deleting old result blocks: every tool_use still needs its tool_result (P2); "
                   "replace the content instead")
TOO_MUCH = deferred("clearing more than the old results: tool_use blocks, text and the last turns "
                    "stay as they are")
IN_PLACE = deferred("changing the messages in place: the caller's history must stay as it was; "
                    "build new messages")
WRITE_PRICE = deferred("pricing the cache write like a plain input: a 5-minute write costs 1.25x")
READ_PRICE = deferred("pricing cache reads like plain input: a read costs 0.1x")
TOO_SMALL = deferred("caching a prefix below the minimum: it is silently not cached, so nothing "
                     "changes")
AT_MINIMUM = deferred("not caching a prefix of exactly min_cacheable tokens: only a shorter one is "
                      "not cached")

# --- clear_old_results
# ----------------------------------------------------------------------------------

LOG = "2026-10-07 api request ok\n" * 20
PLACEHOLDER = "[old tool result cleared]"
QUESTION = user("Why did the API slow down on Monday?")


def plain_turns(n: int) -> list:
    """The question and n one-call turns, each answered with a log."""
    made = [QUESTION]
    for k in range(1, n + 1):
        made += [assistant(tool_use(f"t{k}", "fetch_log", {"day": k})),
                 user(tool_result(f"t{k}", f"{LOG}day {k}"))]
    return made


def mixed() -> list:
    """Three turns: text before a call, two calls with an error and a note, a thinking block; then
    an answer and a user message of text alone (not a turn)."""
    return [QUESTION,
            assistant("Fetching the logs.", tool_use("t1", "fetch_log", {"service": "api"})),
            user(tool_result("t1", LOG)),
            assistant(tool_use("t2", "fetch_log", {"service": "worker"}),
                      tool_use("t3", "fetch_log", {"service": "db"})),
            user(tool_result("t2", LOG), tool_result("t3", "no such service", is_error=True),
                 text("Focus on Monday.")),
            assistant({"type": "thinking", "thinking": "", "signature": "sig"},
                      tool_use("t4", "grep", {"p": "slow"})),
            user({"type": "tool_result", "tool_use_id": "t4", "content": [text("12 matches")]}),
            assistant("The worker was slow."),
            user("Check the database too.")]


def clearing_cases() -> list[Case]:
    """0 to 3 turns, keep from 0 to one more than there are turns."""
    made = [Case(tr("[] and keep=1"), ([], 1, PLACEHOLDER))]
    for n in (1, 2, 3):
        for keep in range(0, n + 2):
            label = tr_plural("{n} turn and keep={keep}", "{n} turns and keep={keep}", n).format(
                n=n, keep=keep)
            made.append(Case(label, (plain_turns(n), keep, PLACEHOLDER)))
    return made


def keeping_cases() -> list[Case]:
    """Turns with text, two calls, an error, a note, a thinking block, block content, a text-only
    user message."""
    return [Case(
        tr("a history with notes, an error, thinking and block content, keep={keep}").format(
            keep=keep),
        (mixed(), keep, PLACEHOLDER)) for keep in (1, 0, 2, 3)]


def results_free(x):
    """A history as it is, but each tool_result block in its canonical form (how the placeholder is
    written, a string or one text block, is free): every other block is compared as it is, an extra
    key too."""
    if isinstance(x, dict):
        return (
            canonical(x)
            if x.get("type") == "tool_result"
            else {k: results_free(v) for k, v in x.items()}
        )
    return [results_free(v) for v in x] if isinstance(x, list) else x


def kept_as_they_are(out, case: Case) -> str:
    """The sentence itself: the old turns' (user messages holding results) tool_results hold the
    placeholder, and everything else stays exactly as it was."""
    messages, keep, placeholder = case.args
    turns = [i for i, m in enumerate(messages)
             if m["role"] == "user" and any(b.get("type") == "tool_result" for b in m["content"])]
    old = set(turns[:max(len(turns) - keep, 0)])
    want = [{**m, "content": [{**b, "content": placeholder} if b.get("type") == "tool_result" else b
                              for b in m["content"]]} if i in old else m for i,
            m in enumerate(messages)]
    found = difference(results_free(out.value), results_free(want))
    return describe("value", out, out, found) if found else ""


def unchanged_cases() -> list[Case]:
    return keeping_cases()[:2] + [clearing_cases()[2]]


# --- cache_costs
# ------------------------------------------------------------------------------------------

def priced_cases() -> list[Case]:
    """Prefixes well above every minimum, one call or many, each model's input price."""
    made = []
    for prefix, calls in ((50_000, 10), (20_000, 1), (8_000, 40), (4_096, 2)):
        for model in MODELS:
            args = (prefix, calls, price(model).input)
            made.append(Case(f"cache_costs{args}", args))
    return made


def minimum_cases() -> list[Case]:
    """Per model (and the default 1,024): a prefix one below its cache minimum, exactly at it, one
    above."""
    made = []
    models = [(m.cache_minimum, price(m.id).input, {"min_cacheable": m.cache_minimum})
              for m in MODELS.values()]
    for minimum, price_in, kwargs in [(1024, 3.0, {})] + models:
        for prefix in (minimum - 1, minimum, minimum + 1):
            settings = ", ".join(f"{k}={v}" for k, v in kwargs.items())
            made.append(Case(f"cache_costs({prefix}, 10, "
                             f"{price_in}{', ' + settings if settings else ''})",
                             (prefix, 10, price_in), kwargs))
    return made


def without(value):
    """A `loose` keeping the pair's first element, without_usd."""
    return value[0] if isinstance(value, list) and len(value) == 2 else value


def cached(value):
    """A `loose` keeping the pair's second element, with_usd."""
    return value[1] if isinstance(value, list) and len(value) == 2 else value


EXERCISES = [
    exercise("clear_old_results", "clear_old_results", deferred("Clearing old tool results"),
             NOTEBOOK, [
        Rule(deferred("the tool_result blocks of every turn but the last keep have their content "
                      "replaced by the placeholder"), clearing_cases),
        Rule(deferred("blocks, ids, is_error, text and tool_use blocks stay as they are; a turn is "
                      "a user message holding results"), keeping_cases, holds=kept_as_they_are),
        Rule(deferred("messages is left unchanged: a new list is returned"), unchanged_cases,
             ("after",)),
    ]),
    exercise("cache_costs", "cache_costs", deferred("What a prompt cache saves"), NOTEBOOK, [
        Rule(deferred("without_usd: the prefix at price_in on every call"), priced_cases,
             loose=without),
        Rule(deferred("with_usd: a 5-minute write at 1.25x on the first call, reads at 0.1x on the "
                      "others"),
             priced_cases, loose=cached),
        Rule(deferred("a prefix below min_cacheable is not cached; one of exactly min_cacheable "
                      "tokens is"),
             minimum_cases),
    ]),
]
