"""Generated cases for the oracle: toy models as scripts of responses, and deterministic choices
among them.

A `Step` is one response of the toy model: the tools it asks for, its text, whether it thinks first
(an empty thinking block, as 5.x models send by default), or a stop reason it forces (refusal,
pause_turn). A script is a tuple of steps; after the script the model gives up in text, so a loop
with no cap still ends. `loop_case` turns a script into a Case for a loop exercise, `(client, model,
tools, run_tool, prompt, **options)`.

Cases are listed smallest first and picked with a fixed seed: the same list on every machine.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace

from ...api import Scripted, Turn
from ...client import MODEL
from ...contract.exercise import CLIENT, RUN_TOOL
from ...i18n import tr
from ...scenarios import Scenario, call, say
from ...scenarios.search import PAGES, search_tools
from ...tools import Tool, Toolbox
from .oracle import Case, error_text_free, label, written

LONG = "The director of Aurora Run is Mara Voss, born in 1974. " * 30  # cut by a small max_tokens
GIVE_UP = "I give up."  # what the toy model says after its script
QUERIES = list(PAGES)  # a search's query: the k-th call in a response asks for the k-th page


def broken(query: str) -> str:
    raise ConnectionError("the encyclopedia is offline")


def loop_tools() -> Toolbox:
    """search (the Aurora Run encyclopedia, read-only) and broken (raises: its result must be
    is_error)."""
    tools = search_tools()
    return Toolbox([*tools.tools.values(),
                    Tool("broken", "Search a mirror of the encyclopedia that is offline.",
                                       {"type": "object",
                                        "properties": {"query": {"type": "string"}},
                                        "required": ["query"]}, broken)])


@dataclass(frozen=True)
class Step:
    """One response of the toy model."""

    calls: tuple[str, ...] = ()  # the tools it asks for, in order
    text: str | None = None  # its text, before the calls
    thinking: bool = False  # starts with an (empty) thinking block
    # a stop reason it forces: refusal or pause_turn; else tool_use or end_turn
    stop: str | None = None
    # a second text block, after the calls: an answer is every text block, joined
    then: str | None = None

    def turn(self) -> Turn:
        blocks = (
            ([{"type": "thinking", "thinking": ""}] if self.thinking else [])
            + ([{"type": "text", "text": self.text}] if self.text else [])
            + [call(name, query=QUERIES[k % len(QUERIES)]) for k, name in enumerate(self.calls)]
            + ([{"type": "text", "text": self.then}] if self.then else [])
        )
        return Turn(blocks or [{"type": "text", "text": "Done."}], self.stop)

    def words(self) -> str:
        said = tr("thinks, then ") if self.thinking else ""
        if self.stop == "refusal":
            return said + tr("refuses")
        if self.stop == "pause_turn":
            return said + tr("pauses (pause_turn)")
        if self.calls:
            return said + tr("asks for {tools}").format(tools=" + ".join(self.calls))
        if self.text == LONG:
            return said + tr("answers at length")
        return said + tr("answers {text!r}").format(
            text=" + ".join(t for t in (self.text, self.then) if t) or "Done.")


ASKS = Step(("search",))
ANSWERS = Step(text="1974")
TWO_TEXTS = Step(text="Mara Voss was born in ", then="1974.")  # an answer in two text blocks


def scenario(script: tuple[Step, ...], *, prompt: str = "When was the director of Aurora Run born?",
             tools=loop_tools) -> Scenario:
    """A scenario whose model answers the k-th call with the script's k-th step, then gives up."""
    policy = Scripted([s.turn() for s in script], then=say(GIVE_UP))
    return Scenario("generated", describe(script), prompt, policy, tools)


def describe(script: tuple[Step, ...]) -> str:
    """'a model that 1) asks for search 2) answers '1974''."""
    return tr("a model that {steps}").format(steps=" ".join(f"{k}) {s.words()}" for k,
                                                            s in enumerate(script, 1)))


def loop_case(script: tuple[Step, ...], *, tools=loop_tools, **options) -> Case:
    """A Case for a loop exercise: the script's scenario, the loop's arguments, and keyword
    options."""
    sc = scenario(script, tools=tools)
    args = (CLIENT, MODEL, sc.make_tools().definitions(), RUN_TOOL, sc.prompt)
    # in the language spoken then
    return Case(lambda: describe(script) + settings(options), args, options, sc)


def settings(options: dict) -> str:
    """A case's keyword arguments as its label ends with them: '; max_turns=2;
    max_budget_usd=0.0000258'."""
    return "".join(f"; {k}={written(v)}" for k, v in options.items())


def with_model(case: Case, model: str) -> Case:
    """The same case sent to another model: the loop must send (and price) the model it is given."""
    args = (case.args[0], model, *case.args[2:])
    return replace(case, label=lambda: f"{label(case)}; model={model!r}", args=args)


def scripts(steps: list[Step], longest: int, *,
            end: tuple[Step, ...] = (ANSWERS,)) -> list[tuple[Step, ...]]:
    """Every script of up to `longest` steps drawn from `steps`, each followed by one of `end`,
    shortest first."""
    found: list[tuple[Step, ...]] = [()]
    for n in range(1, longest):
        found += itertools.product(steps, repeat=n)
    return [tuple(s) + (e,) for s in found for e in end]


def pick(cases: list, n: int, *, keep: int = 0, seed: int = 0) -> list:
    """The first `keep` cases and a fixed-seed sample of n - keep of the rest, in their original
    order."""
    rest = list(range(keep, len(cases)))
    chosen = sorted(random.Random(seed).sample(rest, min(n - keep, len(rest)))) if n > keep else []
    return cases[:keep] + [cases[i] for i in chosen]


def signatures_free(x):
    """Thinking blocks' signatures left free: the API's opaque token, which an error result's
    wording changes."""
    if isinstance(x, dict):
        thinking = x.get("type") == "thinking"
        return {k: "…" if thinking and k == "signature" else signatures_free(v) for k,
                v in x.items()}
    if isinstance(x, list):
        return [signatures_free(v) for v in x]
    return x


def max_tokens_free(x):
    """A `loose` for loops whose text sets no max_tokens: error_text_free, signatures_free, and each
    request's max_tokens left free."""
    x = signatures_free(error_text_free(x))
    if isinstance(x, list):
        return [{k: v for k, v in r.items() if k != "max_tokens"} if isinstance(r, dict)
                and "messages" in r else r
                for r in x]
    return x


def no_tools_free(x):
    """A `loose` for functions that offer the model no tools: a request with `tools: []` offers none
    either. The signatures of thinking blocks are signed over the request as sent (its tools
    included), so they are left free too: a changed one is the API's 400, which the function then
    meets."""
    def no_empty_tools(x):
        if isinstance(x, list):
            return [no_empty_tools(v) for v in x]
        if isinstance(x, dict):
            return {k: no_empty_tools(v) for k,
                    v in x.items() if not (k == "tools" and v == [] and "messages" in x)}
        return x

    return no_empty_tools(signatures_free(x))
