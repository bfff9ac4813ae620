"""Lesson 03, the first loop: `agent_loop`, graded on the requests it sent and the tools it ran.

agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024) -> (answer, messages)
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...i18n import deferred, tr
from ...scenarios import Scenario, call, get, say
from ...scenarios.search import always_tool_policy, search_tools
from ...tools import Tool, Toolbox
from ..exercise import Check, Exercise
from .common import IDS, accepted, content, expect, loop_args, pair, returned, same_message, same_messages

# The mistakes the material lists. A check names one only when what the loop did shows it for certain;
# otherwise the failure shows the difference (expected against got) and names no cause.
TEXT_LOOKS_FINAL = deferred("ending on a response whose stop_reason is tool_use (its text looked final): decide by "
                            "stop_reason")
NO_ASSISTANT = deferred("tool_results that follow no assistant tool_use: keep the message that asked, right before "
                        "them")
ONLY_ONE_RESULT = deferred("answering only some of a response's tool_uses: every tool_use needs its tool_result")
ONE_MESSAGE_EACH = deferred("returning parallel results one message each: all results go in one user message")
TEXT_BEFORE_RESULTS = deferred("putting text before the tool_result blocks: results come first")
WRONG_IDS = IDS
RESULTS_ORDER = deferred("results in another order than the tool_uses: answer them in the order they were asked")
ENDS_WITH_ASSISTANT = deferred("sending a request that ends with an assistant message: the results go in a user "
                               "message after it")
TOOLS_BEFORE_STOP_REASON = deferred("running the tool_use of a response cut at max_tokens: check stop_reason before "
                                    "tool blocks")
NO_CAP = deferred("no turn cap: a model that always asks for tools never stops the loop")
OFF_BY_ONE = deferred("an off-by-one cap: max_turns counts tool-use turns, so at most max_turns + 1 calls")
RAN_LAST_TOOLS = deferred("running the tools of the response after the last allowed turn: at the cap they are not run")
ANSWER_AT_CAP = deferred("returning an answer when the turn cap stopped the loop: a capped run has no answer (None)")
ANSWER_WHEN_CUT = deferred("returning the text of a reply cut at max_tokens as the answer: a cut reply is not an "
                           "answer (None)")
ANSWER_WHEN_REFUSED = deferred("returning the text of a refused response as the answer: a refusal is not an answer")
NO_ANSWER = deferred("returning None after an end_turn response: its text is the answer")
CONTINUES_AFTER_CUT = deferred("calling the model again after a reply cut at max_tokens: the loop ends there, with no "
                               "answer")
NOT_ALL_TOOLS = deferred("running only some of a response's tool_uses: run every one, in order")
NO_IS_ERROR = deferred("answering a failed tool without is_error: true")
NO_ERROR_TEXT = deferred("an is_error result without the error: its content should say what failed")
TOOL_EXCEPTION = deferred("a tool exception crashing the loop: it must become an is_error tool_result")

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
    return say("Mara Voss directed the film; she was born in 1974." if "Mara Voss (born 1974)" in seen
               else "I am not sure.")


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


PARALLEL = Scenario("grading_parallel_three", "Three searches in one response",
                    "Who directed Aurora Run, and when was she born?",
                    parallel_policy, search_tools)
RAISES = Scenario("grading_tool_raises", "A tool that raises", "When was the director of Aurora Run born?",
                  raising_policy,
                  lambda: Toolbox([Tool("search", "Search the encyclopedia.", {"type": "object", "properties": {
                      "query": {"type": "string"}}, "required": ["query"]}, broken_tool)]))
LOOKS_FINAL = Scenario("grading_looks_final", "Text that looks final with stop_reason tool_use",
                       "When was the director of Aurora Run born?", looks_final_policy, search_tools)
ENDLESS = Scenario("grading_endless", "A model that always asks for a tool", get("always_tool").prompt, endless_policy,
                   search_tools)
LONG_ANSWER = Scenario("grading_long_answer", "An answer longer than max_tokens", "Tell me about Aurora Run.",
                       long_answer_policy, search_tools)
CUT_TOOL = Scenario("grading_cut_tool_use", "A tool_use cut by max_tokens", "Tell me about Aurora Run.",
                    cut_tool_policy,
                    search_tools)
SCENARIOS = [PARALLEL, RAISES, LOOKS_FINAL, ENDLESS, LONG_ANSWER, CUT_TOOL]


def diagnose(body: dict) -> str:
    """The mistake behind a rejected request, when its messages show it for certain; else no cause."""
    messages = body.get("messages") or []
    for i, m in enumerate(messages):
        results = [b for b in content(m) if b.get("type") == "tool_result"]
        if m.get("role") != "user" or not results:
            continue
        prev = messages[i - 1] if i else {}
        ids = ([b.get("id") for b in content(prev) if b.get("type") == "tool_use"]
               if prev.get("role") == "assistant" else [])
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
            return RESULTS_ORDER
    return ENDS_WITH_ASSISTANT if messages and messages[-1].get("role") != "user" else ""


def run(ctx, scenario: Scenario | str, crash_hint: str = "", **options):
    """Call agent_loop on `scenario`; fail unless the API accepted every request and the function returned."""
    sc = get(scenario) if isinstance(scenario, str) else scenario
    out = ctx.call(*loop_args(sc), scenario=sc, **options)
    accepted(out, diagnose)
    returned(out, crash_hint)
    return out




def ending(out, answer, cap: int | None = None) -> str:
    """The mistake behind a wrong answer, read from how the last response ended; "" when it is not certain."""
    last = out.replies[-1] if out.replies else {}
    reason = last.get("stop_reason")
    if reason == "end_turn" and answer is None:
        return NO_ANSWER
    if answer is None or reason == "end_turn":
        return ""
    if reason == "max_tokens":
        return ANSWER_WHEN_CUT
    if reason == "tool_use":
        return ANSWER_AT_CAP if cap is not None and len(out.requests) == cap + 1 else TEXT_LOOKS_FINAL
    return ""


def check_history(out, answer, messages) -> None:
    """Each request is the previous one plus the reply as received and one user message; the returned messages
    are the last request's, plus the final reply when there is an answer. Without an answer, appending the
    response that ended the loop (cut, refused, or still asking for tools) is the other accepted reading."""
    for k in range(1, len(out.requests)):
        before, now = out.requests[k - 1]["messages"], out.requests[k]["messages"]
        reply = {"role": "assistant", "content": out.replies[k - 1]["content"]}
        at = next((i for i, m in enumerate(now) if same_message(m, reply)), len(now) - 2)  # its results follow it
        what = tr("request {number} is not request {previous} plus reply {previous} and one user message")
        same_messages(now, before + [reply] + now[at + 1:at + 2], what.format(number=k + 1, previous=k))
    last = out.requests[-1]["messages"] if out.requests else []
    response = [{"role": "assistant", "content": out.replies[-1]["content"]}] if out.replies else []
    if answer is not None:
        same_messages(messages, last + response,
                      tr("the returned messages are not the last request's plus the final reply"))
    else:
        same_messages(messages, last, tr("with no answer, the returned messages are not the last request's "
                                         "(with or without the response that ended the loop)"),
                      readings=[last + response])


def one_shot(ctx) -> None:
    out = run(ctx, "one_shot")
    answer, messages = pair(out.value)
    expect(len(out.requests) == 1, tr("{count} model calls for a question answered at once; expected 1").format(
        count=len(out.requests)))
    body = out.requests[0]
    expect(body.get("tools") == get("one_shot").make_tools().definitions(),
           tr("the request does not send the tool definitions given"))
    expect(body.get("max_tokens") == 1024,
           tr("max_tokens sent was {sent}, expected the default 1024").format(sent=body.get("max_tokens")))
    expect(answer == "Paris", tr("the answer was {answer!r}, expected 'Paris' (the text of the final response)").format(
        answer=answer), ending(out, answer))
    check_history(out, answer, messages)


def aurora(ctx) -> None:
    out = run(ctx, "aurora_run")
    answer, messages = pair(out.value)
    expect(len(out.requests) == 3, tr("{count} model calls; Aurora Run takes 2 tool-use turns, so 3 calls").format(
        count=len(out.requests)), ending(out, answer) if len(out.requests) < 3 else "")
    expect([name for name, _ in out.tool_calls] == ["search", "search"],
           tr("tools run: {calls}; expected two searches").format(calls=out.tool_calls))
    expect(answer == "1974", tr("the answer was {answer!r}, expected '1974'").format(answer=answer),
           ending(out, answer))
    check_history(out, answer, messages)


def parallel(ctx) -> None:
    out = run(ctx, PARALLEL)
    answer, messages = pair(out.value)
    expect(len(out.tool_calls) == 3, tr("{count} of the 3 requested tools were run").format(count=len(out.tool_calls)),
           NOT_ALL_TOOLS if 0 < len(out.tool_calls) < 3 else ending(out, answer))
    order = [u["input"]["query"] for u in out.replies[0]["content"] if u["type"] == "tool_use"]
    ran = [i.get("query") for _, i in out.tool_calls]
    expect(ran == order, tr("the tools ran in the order {ran}; expected the order asked, {order}").format(
        ran=ran, order=order))
    results = content(out.requests[1]["messages"][-1])
    asked = [b["id"] for b in out.replies[0]["content"] if b["type"] == "tool_use"]
    got = [b.get("tool_use_id") for b in results]
    expect(got == asked, tr("the results answer {got}; expected one per tool_use in the order asked, {asked}").format(
        got=got, asked=asked), RESULTS_ORDER if sorted(got) == sorted(asked) else "")
    expect(answer is not None and "1974" in answer, tr("the answer was {answer!r}").format(answer=answer),
           ending(out, answer))
    check_history(out, answer, messages)


def tool_raises(ctx) -> None:
    sc = RAISES
    out = ctx.call(*loop_args(sc), scenario=sc)
    accepted(out, diagnose)
    returned(out, TOOL_EXCEPTION if out.error and "the encyclopedia is offline" in out.error else "")
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2,
           tr("{count} model calls; the failed tool's result should be sent back once").format(count=len(out.requests)))
    results = [b for b in content(out.requests[1]["messages"][-1]) if b.get("type") == "tool_result"]
    expect(len(results) == 1, tr("{count} tool_results for the one tool_use").format(count=len(results)))
    expect(results[0].get("is_error") is True,
           tr("the failed tool's result has is_error {flag!r}, expected True").format(flag=results[0].get("is_error")),
           NO_IS_ERROR)
    expect("the encyclopedia is offline" in str(results[0].get("content")),
           tr("the failed tool's result says {says!r}, not the error ('the encyclopedia is offline')").format(
               says=str(results[0].get("content"))[:80]), NO_ERROR_TEXT)
    expect(answer == "The search failed, so I cannot answer.", tr("the answer was {answer!r}").format(answer=answer),
           ending(out, answer))


def looks_final(ctx) -> None:
    out = run(ctx, LOOKS_FINAL)
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2 and out.tool_calls == [("search", {"query": "Mara Voss"})],
           tr("the first response said 'Done! The answer is 1951.' with stop_reason tool_use, and the loop ran "
              "{tools} tools in {calls} calls instead of running the search and calling again").format(
               tools=len(out.tool_calls), calls=len(out.requests)),
           ending(out, answer) if len(out.requests) == 1 else "")
    expect(answer == "Correction: the director, Mara Voss, was born in 1974.",
           tr("the answer was {answer!r}").format(answer=answer), ending(out, answer))


def turn_cap(ctx) -> None:
    for cap in (0, 1, 3):
        out = run(ctx, ENDLESS, max_turns=cap)
        answer, messages = pair(out.value)
        n = len(out.requests)
        hint = NO_CAP if n >= GIVE_UP_AT else OFF_BY_ONE if abs(n - (cap + 1)) == 1 else ""
        expect(n == cap + 1, tr("max_turns={cap} with a model that always asks for a tool: {count} calls, expected "
                                "{expected}").format(cap=cap, count=n, expected=cap + 1), hint)
        expect(len(out.tool_calls) == cap,
               tr("max_turns={cap}: {count} tools run, expected {cap} (the last response's tools are not run)").format(
                   cap=cap, count=len(out.tool_calls)), RAN_LAST_TOOLS if len(out.tool_calls) == cap + 1 else "")
        expect(answer is None, tr("max_turns={cap}: the answer was {answer!r}, expected None").format(
            cap=cap, answer=answer), ANSWER_AT_CAP)
        check_history(out, answer, messages)


def cap_boundary(ctx) -> None:
    out = run(ctx, "aurora_run", max_turns=2)
    answer, _ = pair(out.value)
    expect(answer == "1974", tr("max_turns=2 allows Aurora Run's 2 turns: {count} calls, the answer was {answer!r}, "
                                "expected '1974' after 3 calls").format(count=len(out.requests), answer=answer),
           OFF_BY_ONE if len(out.requests) == 2 and answer is None else ending(out, answer))
    out = run(ctx, "aurora_run", max_turns=1)
    answer, _ = pair(out.value)
    expect(len(out.requests) == 2, tr("max_turns=1: {count} calls, expected 2").format(count=len(out.requests)))
    expect(answer is None, tr("max_turns=1 stops before the answer, but the answer was {answer!r}").format(
        answer=answer), ending(out, answer, 1))


def max_tokens(ctx) -> None:
    out = run(ctx, LONG_ANSWER, max_tokens=60)
    answer, messages = pair(out.value)
    sent = out.requests[0].get("max_tokens")
    expect(sent == 60, tr("max_tokens sent was {sent}, expected 60").format(sent=sent))
    expect(out.replies[0].get("stop_reason") == "max_tokens", tr("the reply was not cut (is max_tokens sent?)"))
    expect(len(out.requests) == 1, tr("{count} calls after a reply cut at max_tokens; expected 1").format(
        count=len(out.requests)), CONTINUES_AFTER_CUT)
    expect(answer is None, tr("a reply cut at max_tokens was returned as the answer: {answer!r}...").format(
        answer=str(answer)[:60]), ANSWER_WHEN_CUT)
    check_history(out, answer, messages)


def cut_tool_use(ctx) -> None:
    out = run(ctx, CUT_TOOL, max_tokens=12)
    answer, messages = pair(out.value)
    expect(out.replies[0].get("stop_reason") == "max_tokens", tr("the reply was not cut (is max_tokens sent?)"))
    expect(not out.tool_calls,
           tr("the response stopped at max_tokens inside a tool_use, and the loop ran it: {calls}").format(
               calls=out.tool_calls), TOOLS_BEFORE_STOP_REASON)
    expect(len(out.requests) == 1, tr("{count} calls after a reply cut at max_tokens; expected 1").format(
        count=len(out.requests)), CONTINUES_AFTER_CUT)
    expect(answer is None, tr("the answer was {answer!r} after a reply cut at max_tokens; expected None").format(
        answer=answer), ANSWER_WHEN_CUT)
    check_history(out, answer, messages)


def other_stop(ctx) -> None:
    out = run(ctx, "refusal")
    answer, messages = pair(out.value)
    expect(out.replies[0].get("stop_reason") == "refusal", tr("the scenario's model did not refuse"))
    expect(len(out.requests) == 1, tr("{count} calls after a refusal; expected 1").format(count=len(out.requests)))
    expect(answer is None, tr("a refusal was returned as the answer: {answer!r}").format(answer=str(answer)[:60]),
           ANSWER_WHEN_REFUSED)
    check_history(out, answer, messages)


EXERCISES = [
    Exercise("agent_loop", "agent_loop", deferred("Fix a broken loop"), [
        Check(deferred("one-shot question: one call, the answer is the final text"), one_shot),
        Check(deferred("Aurora Run: two searches, three calls, answer 1974, history kept"), aurora),
        Check(deferred("three tool_uses in one response: all answered, in one message, in order"), parallel),
        Check(deferred("a tool that raises becomes an is_error tool_result with the error"), tool_raises),
        Check(deferred("text that looks final does not end the loop: stop_reason does"), looks_final),
        Check(deferred("max_turns=T: exactly T+1 calls (T = 0, 1, 3), the last tools not run, answer None"), turn_cap),
        Check(deferred("max_turns at the boundary: 2 is enough for Aurora Run, 1 is not"), cap_boundary),
        Check(deferred("a reply cut at max_tokens is not an answer"), max_tokens),
        Check(deferred("a tool_use cut at max_tokens is not run"), cut_tool_use),
        Check(deferred("another stop_reason (a refusal) ends the loop without an answer"), other_stop),
    ], notebook="solutions/03_the_first_loop.ipynb"),
]
