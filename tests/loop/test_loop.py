"""The reference loop: the material's simulation table (9.1), stop reasons, gate, hooks, limits,
concurrency."""
import os
import signal
import threading

import pytest

from course.api import LocalAPI, Scripted, Turn
from course.client import MODEL, make_client
from course.events import (
    CONTEXT_WINDOW,
    DURING_EXECUTION,
    ESCALATED,
    MAX_BUDGET,
    MAX_TOKENS,
    MAX_TURNS,
    REFUSAL,
    REPEATED,
    SUCCESS,
    TIMEOUT,
    TOKEN_BUDGET,
    Finished,
    LimitHit,
    ModelCall,
    ToolEnd,
)
from course.gate import Gate
from course.loop import Agent, Hooks, Limits
from course.messages import tool_uses, violations
from course.pricing import cost_usd
from course.scenarios import call, get, say
from course.tools import Tool, Toolbox

NO_LIMITS = Limits(max_turns=None)
# a turn cap for tests of other limits: a broken limit fails the test instead of hanging it
SAFETY = 40


def echo_tools(*names, read_only=True, fn=None):
    return Toolbox([Tool(n, "", {"type": "object", "properties": {"q": {"type": "string"}}},
                         fn or (lambda q="", n=n: f"{n}:{q}"), read_only=read_only) for n in names])


def agent(turns, tools=None, then=None, api_options=None, **options):
    """An Agent on the local API answering with a script of Turns."""
    api = LocalAPI(Scripted(turns, then), **{"undeclared_tools": True, **(api_options or {})})
    options.setdefault("limits", NO_LIMITS)
    return Agent(make_client(api, max_retries=0), MODEL, tools or echo_tools("look"), **options)


def valid(result):
    return violations(result.messages, final_assistant=True) == []


# --- Seed 000, 9.1: the simulation table, reproduced on the real loop
# --------------------------------------

def run_9_1(model, max_turns, **options):
    s = get(model)
    ws = s.workspace()
    return s.agent(workspace=ws, limits=Limits(max_turns=max_turns), **options).run(s.prompt), ws


@pytest.mark.parametrize("model,T,subtype,calls,turns,length,a_py", [
    ("gated_write", None, SUCCESS, 4, 3, 8, "fixed"),
    ("gated_write", 2, MAX_TURNS, 3, 2, 5, "fixed"),
    ("always_tool", 2, MAX_TURNS, 3, 2, 5, None),
    ("always_tool", 5, MAX_TURNS, 6, 5, 11, None),
])
def test_the_simulation_table(model, T, subtype, calls, turns, length, a_py):
    r, ws = run_9_1(model, T)
    assert (r.subtype, r.calls, r.turns, len(r.messages)) == (subtype, calls, turns, length)
    assert valid(r)
    if a_py:
        assert ws.read("a.py") == a_py


def test_the_denied_write_is_an_error_result_and_changes_nothing():
    r, ws = run_9_1("gated_write", None)
    (denied,) = r.messages[6]["content"]
    assert denied["is_error"] and denied["content"] == ("Permission denied by rule deny "
                                                        "write_file(/etc/*)")
    assert sorted(ws.files) == ["a.py", "t.py"] and "refused" in r.text


def test_budget_10_at_3_per_call_stops_after_4_calls_having_spent_12():
    s = get("always_tool")
    r = s.run(limits=Limits(max_turns=SAFETY, max_budget_usd=10), cost=lambda model, usage: 3)
    assert (r.subtype, r.calls, r.cost_usd) == (MAX_BUDGET, 4, 12)
    assert 10 <= r.cost_usd < 10 + 3 and valid(r)


# --- stop reasons
# ---------------------------------------------------------------------------------------------

def test_end_turn_is_success_with_the_final_message():
    r = agent([say("hello")]).run("hi")
    assert (r.subtype, r.text, r.calls, r.turns, r.stop_reason) == (
        SUCCESS,
        "hello",
        1,
        0,
        "end_turn",
    )
    assert r.messages[-1] == {"role": "assistant", "content": [{"type": "text", "text": "hello"}]}


def test_a_stop_sequence_ends_the_answer_before_it():
    r = agent([say("answer: 42 END and more")], stop_sequences=["END"]).run("q")
    assert (r.subtype, r.text, r.stop_reason) == (SUCCESS, "answer: 42 ", "stop_sequence")


def test_max_tokens_is_not_an_answer_and_nothing_of_it_runs():
    ran = []
    tools = echo_tools("write", read_only=False, fn=lambda q="": ran.append(q) or "ok")
    r = agent([say("ok", call("write", q="x" * 8000))], tools=tools, max_tokens=100).run("go")
    assert (r.subtype, r.text, r.stop_reason, ran) == (MAX_TOKENS, None, "max_tokens", [])
    assert len(r.messages) == 1 and valid(r)


def test_a_refusal_reports_its_details():
    details = {"type": "refusal", "category": "cyber", "explanation": "no"}
    r = agent([say("I can't.", stop_reason="refusal", stop_details=details)]).run("q")
    assert r.subtype == REFUSAL and "cyber" in r.detail and r.text is None and valid(r)


def test_pause_turn_sends_the_message_back_and_counts_as_a_turn():
    r = get("pause_turn").run()
    assert (r.subtype, r.calls, r.turns) == (SUCCESS, 2, 1)
    assert [m["role"] for m in r.messages] == ["user", "assistant", "assistant"] and valid(r)
    r = get("pause_turn").run(limits=Limits(max_turns=0))
    assert (r.subtype, r.calls, r.messages[-1]["role"]) == (MAX_TURNS, 1, "user")


def test_the_context_window_exceeded_mid_answer():
    r = agent([say("word " * 400)], api_options={"context_window": 300}).run("q")
    assert (r.subtype, r.stop_reason) == (
        CONTEXT_WINDOW,
        "model_context_window_exceeded",
    ) and valid(r)


def test_tool_use_without_blocks_is_an_error():
    r = agent([Turn([{"type": "text", "text": "calling"}], "tool_use")]).run("q")
    assert r.subtype == DURING_EXECUTION and "without tool_use" in r.detail and valid(r)


def test_tool_use_blocks_run_whatever_the_stop_reason_says():
    r = agent([Turn([call("look", q="a")], "end_turn"), say("done")]).run("q")
    assert (r.subtype, r.turns) == (SUCCESS, 1) and valid(r)


def test_an_api_failure_after_retries_is_error_during_execution():
    api = LocalAPI(Scripted([say("x")])).inject("server_error")
    r = Agent(make_client(api, max_retries=0), MODEL, echo_tools("look")).run("q")
    assert (
        (r.subtype, r.calls) == (DURING_EXECUTION, 0)
        and "InternalServerError" in r.detail
        and valid(r)
    )


# --- results, gate, hooks
# ------------------------------------------------------------------------------------

def results(r):
    return [(b["content"], b.get("is_error", False)) for m in r.messages if m["role"] == "user"
            for b in m["content"] if b["type"] == "tool_result"]


def test_errors_become_results_the_model_reads():
    tools = echo_tools("look")
    tools.add(Tool("boom", "", {"type": "object"}, lambda: 1 / 0))
    r = agent([say(call("nope"), call("look", q=3), call("boom")), say("ok")], tools=tools).run("q")
    (unknown, err1), (invalid, err2), (boom, err3) = results(r)
    assert (
        err1 and err2 and err3 and "unknown tool" in unknown and "not of type 'string'" in invalid
    )
    assert (
        boom == "Error: ZeroDivisionError: division by zero" and r.subtype == SUCCESS and valid(r)
    )


def test_a_refused_call_is_answered_and_not_run():
    ran = []
    tools = echo_tools("write", read_only=False, fn=lambda q="": ran.append(q) or "ok")
    r = agent([say(call("write", q="a"), call("write", q="b")), say("done")], tools=tools,
              gate=Gate(deny=["write(b)"])).run("q")
    assert ran == ["a"] and results(r) == [("ok", False),
                                           ("Permission denied by rule deny write(b)", True)]


def test_hooks_block_rewrite_and_fail_safely():
    def pre(name, input):
        if input.get("q") == "blocked":
            return "not today"
        if input.get("q") == "raise":
            raise RuntimeError("hook bug")

    hooks = Hooks(pre_tool=pre, post_tool=lambda name, input, content, err: content.upper())
    r = agent([say(call("look", q="blocked"), call("look", q="fine"), call("look", q="raise")),
               say("ok")],
              hooks=hooks).run("q")
    assert results(r) == [("Blocked by a hook: not today", True), ("LOOK:FINE", False),
                          ("Error in the harness: RuntimeError: hook bug", True)]


def test_read_only_calls_run_concurrently_and_results_keep_request_order():
    barrier, last_done = threading.Barrier(3, timeout=10), threading.Event()

    def read(q=""):
        barrier.wait()  # only passes if all three run at once
        if q != "c":
            last_done.wait(10)  # a and b finish after c
        else:
            last_done.set()
        return q

    r = agent([say(*[call("look", q=q) for q in "abc"]), say("ok")],
              tools=echo_tools("look", fn=read)).run("q")
    assert results(r) == [("a", False), ("b", False), ("c", False)]


def test_other_calls_run_one_at_a_time_in_request_order():
    active, seen, lock = [0], [], threading.Lock()

    def write(q=""):
        with lock:
            active[0] += 1
            seen.append((q, active[0]))
        threading.Event().wait(0.01)
        with lock:
            active[0] -= 1
        return q

    tools = echo_tools("write", read_only=False, fn=write)
    tools.add(echo_tools("look")["look"])
    agent(
        [say(call("write", q="1"), call("look", q="r"), call("write", q="2"), call("write", q="3")),
         say("ok")],
        tools=tools).run("q")
    assert seen == [("1", 1), ("2", 1), ("3", 1)]


# --- limits and the human
# -------------------------------------------------------------------------------------

def always(q="same"):
    return Turn([call("look", q=q)])


def test_max_total_tokens():
    r = agent([], then=always(), limits=Limits(max_turns=SAFETY, max_total_tokens=500)).run("q")
    assert r.subtype == TOKEN_BUDGET and valid(r)
    spent = [u["input_tokens"] + u["output_tokens"] for u in r.usages]
    assert sum(spent[:-1]) < 500 <= sum(spent)


def test_the_wall_clock_is_checked_before_each_call():
    ticks = iter(range(10_000))
    r = agent([], then=always(), limits=Limits(max_turns=SAFETY, timeout_s=20),
              clock=lambda: next(ticks)).run("q")
    assert r.subtype == TIMEOUT and r.calls >= 1 and valid(r)


def test_a_repeated_identical_call_stops_the_run():
    r = agent([], then=always(), limits=Limits(max_turns=SAFETY, max_repeats=3)).run("q")
    assert (r.subtype, r.calls, r.turns) == (REPEATED, 3, 2) and valid(r)
    varied = agent([always("a"), always("b"), always("a"), always("b"), say("done")],
                   limits=Limits(max_turns=None, max_repeats=2)).run("q")
    assert varied.subtype == SUCCESS


def test_the_human_can_answer_a_repeat_with_guidance():
    asked = []
    r = agent([always(), always(), say("changing tack")],
              limits=Limits(max_turns=None, max_repeats=2),
              escalate=lambda reason, h: asked.append(reason) or "Try another query.").run("q")
    assert r.subtype == SUCCESS and "2 times in a row" in asked[0] and valid(r)
    assert r.messages[4]["content"][-1] == {"type": "text", "text": "Try another query."}


def test_tool_errors_in_a_row_hand_control_to_a_human():
    r = agent(
        [], then=Turn([call("nope")]), limits=Limits(max_turns=SAFETY, max_tool_errors=2)
    ).run("q")
    assert (r.subtype, r.turns) == (ESCALATED, 2) and valid(r)


def test_an_interrupt_during_a_tool_leaves_a_valid_history():
    def hang(q=""):
        raise KeyboardInterrupt

    try:
        r = agent([always("x"), always("y")],
                  tools=echo_tools("look", fn=lambda q="": "ok" if q == "x" else hang())).run("q")
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped the loop without a Result")
    assert r.subtype == DURING_EXECUTION and "interrupted" in r.detail
    assert len(r.messages) == 3 and valid(r)


# --- events and the result
# ------------------------------------------------------------------------------------

def test_events_tell_the_story_in_order():
    events = list(agent([say(call("look", q="a"), call("look", q="b")), say("ok")]).events("q"))
    kinds = [type(e).__name__ for e in events]
    assert kinds == ["ModelCall", "ModelResponse", "ToolStart", "ToolStart", "ToolEnd", "ToolEnd",
                     "ModelCall", "ModelResponse", "Finished"]
    assert [e.call for e in events if isinstance(e, ModelCall)] == [1, 2]
    assert events[1].stop_reason == "tool_use" and tool_uses(events[1].message)[0]["input"] == {
        "q": "a"
    }
    ends = [e for e in events if isinstance(e, ToolEnd)]
    assert [e.content for e in ends] == ["look:a", "look:b"] and all(
        e.started <= e.ended for e in ends)
    assert len(events[6].messages) == 3


def test_errors_end_with_a_limit_hit_event():
    events = list(agent([], then=always(), limits=Limits(max_turns=1)).events("q"))
    assert isinstance(events[-2], LimitHit) and events[-2].subtype == MAX_TURNS
    assert isinstance(events[-1], Finished) and events[-1].result.subtype == MAX_TURNS


def test_usage_and_cost_are_summed_over_calls():
    r = get("aurora_run").run()
    assert (
        r.usage["input_tokens"] == sum(u["input_tokens"] for u in r.usages)
        and len(r.usages) == r.calls == 3
    )
    assert r.cost_usd == pytest.approx(sum(cost_usd(MODEL, u) for u in r.usages)) and r.cost_usd > 0
    assert r.text == "1974" and r.duration_s >= 0 and not r.is_error


def test_a_history_can_be_continued():
    first = agent([say("one")]).run("q")
    more = agent([say("one"), say("two")]).run(
        first.messages + [{"role": "user", "content": "again"}])
    assert more.text == "two" and len(more.messages) == 4


def test_exercise_10_1_T_0_is_a_single_call_without_tools():
    r, _ = run_9_1("always_tool", 0)
    assert (r.subtype, r.calls, r.turns, len(r.messages)) == (MAX_TURNS, 1, 0, 1)
    r = get("one_shot").run(limits=Limits(max_turns=0))
    assert (r.subtype, r.calls, len(r.messages)) == (SUCCESS, 1, 2)


@pytest.fixture
def ctrl_c():
    """SIGINT as a terminal's Ctrl-C finds it: Python's own handler, not blocked in this thread (the
    threads the loop starts inherit the mask), whatever an earlier test in this process left; put
    back after. (nbclient, for one, leaves asyncio's no-op handler behind when a kernel fails to
    start, and the run then waits for the hanging read, as it once did in CI.)"""
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    blocked = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    yield f"SIGINT's handler was {handler!r}, blocked: {signal.SIGINT in blocked}"
    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    signal.signal(signal.SIGINT, handler)


def test_an_interrupt_during_concurrent_reads_does_not_wait_for_a_hanging_one(ctrl_c):
    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def read(q=""):
        if q == "hang":
            started.set()
            release.wait(30)  # hangs until the test ends
            finished.set()
        else:  # a human presses Ctrl-C while the other read hangs
            started.wait(10)
            os.kill(os.getpid(), signal.SIGINT)
        return q

    try:
        r = agent([say(call("look", q="hang"), call("look", q="stop"))],
                  tools=echo_tools("look", fn=read)).run("q")
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped the loop without a Result")
    else:
        assert not finished.is_set(), ctrl_c  # the run ended while the other read still hung
    finally:
        release.set()
    assert r.subtype == DURING_EXECUTION and len(r.messages) == 1 and valid(r)
