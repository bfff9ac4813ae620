"""Lesson 03, the first loop: `agent_loop`, graded on the requests it sent and the tools it ran.

agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024) -> (answer, messages)
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...scenarios import Scenario, call, get, say
from ...scenarios.search import always_tool_policy, search_tools
from ...tools import Tool, Toolbox
from ..exercise import Check, Exercise
from .common import accepted, content, expect, loop_args, pair, returned, same_message

# The mistakes the material lists; a failed check names one of them.
TEXT_LOOKS_FINAL = "ending on text that looks final instead of reading stop_reason"
NO_ASSISTANT = "not keeping the assistant message (or reordering history): the results must follow the message that asked"
ONLY_ONE_RESULT = "answering only the first or the last tool_use: every tool_use needs its tool_result"
ONE_MESSAGE_EACH = "returning parallel results one message each: all results go in one user message"
TEXT_BEFORE_RESULTS = "putting text before the tool_result blocks: results come first"
WRONG_IDS = "wrong tool_use ids: each tool_result carries the id of the tool_use it answers"
TOOLS_BEFORE_STOP_REASON = "acting on tool blocks before checking stop_reason"
NO_CAP = "no turn cap: a model that always asks for tools never stops the loop"
OFF_BY_ONE = "an off-by-one cap: max_turns counts tool-use turns, so at most max_turns + 1 calls"
ANSWER_WHEN_UNFINISHED = "returning an answer when the loop did not finish (max_turns, or max_tokens treated as success)"
TOOL_EXCEPTION = "a tool exception crashing the loop: it must become an is_error tool_result"
HISTORY = "dropping or reordering history: each request is the previous one plus the reply and its results"

GIVE_UP_AT = 40  # the endless model ends its turn at this call, so a loop without a cap still ends


def endless_policy(c: Conversation) -> Turn:
    """always_tool's model, which gives up at call GIVE_UP_AT so that a loop without a cap ends."""
    return say("I give up.") if c.calls_so_far + 1 >= GIVE_UP_AT else always_tool_policy(c)


def parallel_policy(c: Conversation) -> Turn:
    """Three independent searches in one response, then an answer from their results."""
    if not c.calls_so_far:
        return say("I will look up the three pages at once.",
                    *(call("search", query=q) for q in ("Aurora Run", "Mara Voss", "Henrik Dahl")))
    seen = " ".join(c.result_text(r) for r in c.results())
    return say("Mara Voss directed the film; she was born in 1974." if "Mara Voss (born 1974)" in seen else "I am not sure.")


def broken_tool(query: str) -> str:
    raise ConnectionError("the encyclopedia is offline")


def raising_policy(c: Conversation) -> Turn:
    """Asks for a tool that fails, then reports whether it saw an error result."""
    if not c.calls_so_far:
        return Turn([call("search", query="Aurora Run")])
    failed = any(r.get("is_error") for r in c.results())
    return say("The search failed, so I cannot answer." if failed else "The search worked.")


def looks_final_policy(c: Conversation) -> Turn:
    """Text that reads like a final answer, but stop_reason is tool_use: the model is still checking."""
    if not c.calls_so_far:
        return say("Done! The answer is 1951.", call("search", query="Mara Voss"))
    return say("Correction: the director, Mara Voss, was born in 1974.")


def long_answer_policy(c: Conversation) -> Turn:
    return say("The director of Aurora Run is Mara Voss. " * 40 + "She was born in 1974.")


def cut_tool_policy(c: Conversation) -> Turn:
    """A short text, then a tool_use whose long input does not fit in a small max_tokens."""
    return say("Searching.", call("search", query="Aurora Run film adaptation directed by whom " * 8))


PARALLEL = Scenario("grading_parallel_three", "Three searches in one response", "Who directed Aurora Run, and when was she born?",
                    parallel_policy, search_tools)
RAISES = Scenario("grading_tool_raises", "A tool that raises", "When was the director of Aurora Run born?", raising_policy,
                  lambda: Toolbox([Tool("search", "Search the encyclopedia.", {"type": "object", "properties": {
                      "query": {"type": "string"}}, "required": ["query"]}, broken_tool)]))
LOOKS_FINAL = Scenario("grading_looks_final", "Text that looks final with stop_reason tool_use",
                       "When was the director of Aurora Run born?", looks_final_policy, search_tools)
ENDLESS = Scenario("grading_endless", "A model that always asks for a tool", get("always_tool").prompt, endless_policy,
                   search_tools)
LONG_ANSWER = Scenario("grading_long_answer", "An answer longer than max_tokens", "Tell me about Aurora Run.",
                       long_answer_policy, search_tools)
CUT_TOOL = Scenario("grading_cut_tool_use", "A tool_use cut by max_tokens", "Tell me about Aurora Run.", cut_tool_policy,
                    search_tools)
SCENARIOS = [PARALLEL, RAISES, LOOKS_FINAL, ENDLESS, LONG_ANSWER, CUT_TOOL]


def diagnose(body: dict) -> str:
    """The likely mistake behind a rejected request, read from its messages."""
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        results = [b for b in content(m) if b.get("type") == "tool_result"]
        if m.get("role") != "user" or not results:
            continue
        prev = messages[i - 1] if i else {}
        ids = [b.get("id") for b in content(prev) if b.get("type") == "tool_use"] if prev.get("role") == "assistant" else []
        got = [b.get("tool_use_id") for b in results]
        if not ids:
            return NO_ASSISTANT
        if not set(got) <= set(ids):
            return WRONG_IDS
        if content(m)[0].get("type") != "tool_result":
            return TEXT_BEFORE_RESULTS
        if len(got) < len(ids):
            later = messages[i + 1] if i + 1 < len(messages) else {}
            split = any(b.get("type") == "tool_result" for b in content(later))
            return ONE_MESSAGE_EACH if split else ONLY_ONE_RESULT
        if got != ids:
            return HISTORY
    return HISTORY if messages and messages[-1].get("role") != "user" else ""


def run(ctx, scenario: Scenario | str, crash_hint: str = "", **options):
    """Call agent_loop on `scenario`; fail unless the API accepted every request and the function returned."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(*loop_args(sc), scenario=sc, **options)
    accepted(out, diagnose)
    returned(out, crash_hint)
    return out


def check_history(out, answer, messages) -> None:
    """Each request is the previous one plus the reply and a user message; the result is the last request (+ final)."""
    for k in range(1, len(out.requests)):
        before, now = out.requests[k - 1]["messages"], out.requests[k]["messages"]
        expect(len(now) == len(before) + 2 and all(same_message(a, b) for a, b in zip(before, now)),
               f"request {k + 1} is not request {k} plus two messages (it has {len(now)} messages, request {k} had {len(before)})",
               HISTORY)
        reply = {"role": "assistant", "content": out.replies[k - 1]["content"]}
        expect(same_message(now[len(before)], reply), f"request {k + 1} does not carry reply {k} exactly as received",
               NO_ASSISTANT)
    last = out.requests[-1]["messages"] if out.requests else []
    final = [{"role": "assistant", "content": out.replies[-1]["content"]}] if answer is not None else []
    want = last + final
    expect(len(messages) == len(want) and all(same_message(a, b) for a, b in zip(messages, want)),
           f"the returned messages ({len(messages)}) are not the last request's messages"
           + (" plus the final assistant message" if final else "") + f" ({len(want)})", HISTORY)


def one_shot(ctx) -> None:
    out = run(ctx, "one_shot")
    answer, messages = pair(out.value)
    expect(len(out.requests) == 1, f"{len(out.requests)} model calls for a question answered at once; expected 1")
    body = out.requests[0]
    expect(body.get("tools") == get("one_shot").make_tools().definitions(), "the request does not send the tool definitions given")
    expect(body.get("max_tokens") == 1024, f"max_tokens sent was {body.get('max_tokens')}, expected the default 1024")
    expect(answer == "Paris", f"the answer was {answer!r}, expected 'Paris' (the text of the final response)")
    check_history(out, answer, messages)


def aurora(ctx) -> None:
    out = run(ctx, "aurora_run")
    answer, messages = pair(out.value)
    expect(len(out.requests) == 3, f"{len(out.requests)} model calls; Aurora Run takes 2 tool-use turns, so 3 calls",
           TEXT_LOOKS_FINAL if len(out.requests) < 3 else "")
    expect([name for name, _ in out.tool_calls] == ["search", "search"], f"tools run: {out.tool_calls}; expected two searches")
    expect(answer == "1974", f"the answer was {answer!r}, expected '1974'", ANSWER_WHEN_UNFINISHED if answer else HISTORY)
    check_history(out, answer, messages)


def parallel(ctx) -> None:
    out = run(ctx, PARALLEL)
    answer, messages = pair(out.value)
    expect(len(out.tool_calls) == 3, f"{len(out.tool_calls)} of the 3 requested tools were run",
           ONLY_ONE_RESULT if out.tool_calls else TEXT_LOOKS_FINAL)
    results = content(out.requests[1]["messages"][-1])
    asked = [b["id"] for b in out.replies[0]["content"] if b["type"] == "tool_use"]
    expect([b.get("tool_use_id") for b in results] == asked, "the results are not one per tool_use in the order asked",
           HISTORY)
    expect(answer is not None and "1974" in answer, f"the answer was {answer!r}", HISTORY)
    check_history(out, answer, messages)


def tool_raises(ctx) -> None:
    out = run(ctx, RAISES, TOOL_EXCEPTION)
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2, f"{len(out.requests)} model calls; the failed tool's result should be sent back once",
           TOOL_EXCEPTION)
    results = [b for b in content(out.requests[1]["messages"][-1]) if b.get("type") == "tool_result"]
    expect(len(results) == 1 and results[0].get("is_error") is True and results[0].get("content"),
           "the failed tool did not come back as a tool_result with is_error: true and the error as content",
           TOOL_EXCEPTION)
    expect(answer == "The search failed, so I cannot answer.", f"the answer was {answer!r}", TOOL_EXCEPTION)


def looks_final(ctx) -> None:
    out = run(ctx, LOOKS_FINAL)
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2 and out.tool_calls == [("search", {"query": "Mara Voss"})],
           "the first response said 'Done! The answer is 1951.' with stop_reason tool_use, and the loop "
           f"ran {len(out.tool_calls)} tools in {len(out.requests)} calls instead of running the search and calling again",
           TEXT_LOOKS_FINAL)
    expect(answer == "Correction: the director, Mara Voss, was born in 1974.", f"the answer was {answer!r}",
           TEXT_LOOKS_FINAL)


def turn_cap(ctx) -> None:
    for cap in (0, 1, 3):
        out = run(ctx, ENDLESS, max_turns=cap)
        answer, messages = pair(out.value)
        n = len(out.requests)
        hint = NO_CAP if n >= GIVE_UP_AT else OFF_BY_ONE
        expect(n == cap + 1, f"max_turns={cap} with a model that always asks for a tool: {n} calls, expected {cap + 1}", hint)
        expect(len(out.tool_calls) == cap, f"max_turns={cap}: {len(out.tool_calls)} tools run, expected {cap} "
               "(the last response's tools are not run)", OFF_BY_ONE)
        expect(answer is None, f"max_turns={cap}: the answer was {answer!r}, expected None", ANSWER_WHEN_UNFINISHED)
        check_history(out, answer, messages)


def cap_boundary(ctx) -> None:
    out = run(ctx, "aurora_run", max_turns=2)
    answer, _ = pair(out.value)
    expect(answer == "1974", f"max_turns=2 allows Aurora Run's 2 turns: the answer was {answer!r}, expected '1974'",
           OFF_BY_ONE if answer is None else TEXT_LOOKS_FINAL)
    out = run(ctx, "aurora_run", max_turns=1)
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2, f"max_turns=1: {len(out.requests)} calls, expected 2", OFF_BY_ONE)
    expect(answer is None, f"max_turns=1 stops before the answer, but the answer was {answer!r}", ANSWER_WHEN_UNFINISHED)


def max_tokens(ctx) -> None:
    out = run(ctx, LONG_ANSWER, max_tokens=60)
    answer, messages = pair(out.value)
    expect(out.requests[0].get("max_tokens") == 60, "max_tokens was not sent as given")
    expect(out.replies[0].get("stop_reason") == "max_tokens", "the reply was not cut (is max_tokens sent?)")
    expect(answer is None, f"a reply cut at max_tokens was returned as the answer: {str(answer)[:60]!r}...",
           ANSWER_WHEN_UNFINISHED)
    expect(len(out.requests) == 1, f"{len(out.requests)} calls after a reply cut at max_tokens; expected 1", NO_CAP)
    check_history(out, answer, messages)


def cut_tool_use(ctx) -> None:
    out = run(ctx, CUT_TOOL, max_tokens=12)
    answer, _ = pair(out.value)
    expect(out.replies[0].get("stop_reason") == "max_tokens", "the reply was not cut (is max_tokens sent?)")
    expect(not out.tool_calls, f"the response stopped at max_tokens inside a tool_use, and the loop ran it: {out.tool_calls}",
           TOOLS_BEFORE_STOP_REASON)
    expect(answer is None and len(out.requests) == 1, f"answer {answer!r} after {len(out.requests)} calls; expected None after 1",
           ANSWER_WHEN_UNFINISHED)


EXERCISES = [
    Exercise("agent_loop", "agent_loop", "The agent loop", [
        Check("one-shot question: one call, the answer is the final text", one_shot),
        Check("Aurora Run: two searches, three calls, answer 1974, history kept", aurora),
        Check("three tool_uses in one response: all answered, in one message, in order", parallel),
        Check("a tool that raises becomes an is_error tool_result", tool_raises),
        Check("text that looks final does not end the loop: stop_reason does", looks_final),
        Check("max_turns=T: exactly T+1 calls (T = 0, 1, 3), the last tools not run, answer None", turn_cap),
        Check("max_turns at the boundary: 2 is enough for Aurora Run, 1 is not", cap_boundary),
        Check("a reply cut at max_tokens is not an answer", max_tokens),
        Check("a tool_use cut at max_tokens is not run", cut_tool_use),
    ], notebook="solutions/03_the_first_loop.ipynb"),
]
