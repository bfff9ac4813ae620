"""What the observer logs each model call and tool-use turn, read from the loop's events."""
import pytest

from course.context import reported_inputs
from course.events import DURING_EXECUTION, MAX_TURNS, LimitHit, ModelCall
from course.loop import Limits
from course.observe import Observer
from course.scenarios import SCENARIOS, get


def ticking():
    """A clock that advances one second per reading."""
    t = iter(range(10_000))
    return lambda: float(next(t))


def test_one_record_per_call_with_tools_and_tokens():
    scenario = get("aurora_run")
    observer = Observer(clock=ticking())
    result = observer.run(scenario.agent(clock=ticking()), scenario.prompt)
    assert [r.index for r in observer.records] == [1, 2, 3] and result.calls == 3
    assert [r.turn for r in observer.records] == [
        1,
        2,
        None,
    ] and observer.turns == result.turns == 2
    assert [r.stop_reason for r in observer.records] == ["tool_use", "tool_use", "end_turn"]
    assert [[t.input["query"] for t in r.tools] for r in observer.records] == [
        ["Aurora Run"],
        ["Mara Voss"],
        [],
    ]
    assert [r.input_tokens for r in observer.records] == reported_inputs(result.usages)
    assert observer.records[-1].total_tokens == sum(
        result.usage[k] for k in ("input_tokens", "output_tokens"))
    assert observer.records[-1].total_cost_usd == result.cost_usd
    assert all(r.seconds > 0 for r in observer.records)
    assert observer.records[-1].total_seconds == sum(r.seconds for r in observer.records)
    assert observer.records[0].tools[0].preview.startswith("Aurora Run: Aurora Run is a 1998 novel")
    # the agent's clock ticks during a call
    assert all(t.latency_s >= 1 for r in observer.records for t in r.tools)


def test_log_lines_name_calls_turns_and_limits_without_timings():
    scenario = get("always_tool")
    observer = Observer(clock=ticking())
    observer.run(scenario.agent(limits=Limits(max_turns=1)), scenario.prompt)
    lines = observer.lines()
    assert lines[0].startswith("call 1 (turn 1): stop_reason=tool_use in=")
    # the cap: its tools never ran, no second turn
    assert lines[2].startswith("call 2: stop_reason=tool_use in=")
    assert lines[-1].startswith("limit: error_max_turns") and len(lines) == 4
    assert not any("second" in line or " s " in line for line in lines)


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_turns_logged_are_the_loop_s_tool_use_turns(name):
    scenario = get(name)
    observer = Observer()
    result = observer.run(scenario.agent(limits=Limits(max_turns=3)), scenario.prompt)
    assert len(observer.records) == result.calls and observer.turns == result.turns
    assert [r.turn for r in observer.records if r.turn] == list(range(1, result.turns + 1))
    assert all(r.turn or (not r.tools and r.stop_reason != "pause_turn")
               or r is observer.records[-1]
               for r in observer.records)


def test_a_limit_passes_through_is_kept_and_the_last_call_is_closed():
    scenario = get("always_tool")
    agent = scenario.agent(limits=Limits(max_turns=2), clock=ticking())
    plain = list(scenario.agent(limits=Limits(max_turns=2)).events(scenario.prompt))
    observer = Observer(clock=ticking())
    watched = list(observer.watch(agent.events(scenario.prompt)))
    assert [type(e).__name__ for e in watched] == [type(e).__name__ for e in plain]
    limits = [e for e in watched if isinstance(e, LimitHit)]
    assert (
        limits == [observer.limit]
        and observer.limit.subtype == MAX_TURNS == observer.result.subtype
    )
    assert observer.records[-1].seconds > 0 and observer.records[-1].total_seconds > 0


def test_a_call_that_got_no_response_is_logged_as_such_and_is_not_counted():
    scenario = get("aurora_run")
    api = scenario.api()
    observer = Observer()
    for event in observer.watch(scenario.agent(api=api).events(scenario.prompt)):
        if isinstance(event, ModelCall) and event.call == 3:
            api.inject("server_error", times=3, retry_after=0)  # the SDK's two retries fail too
    assert observer.result.subtype == DURING_EXECUTION and (observer.result.calls,
                                                            observer.result.turns) == (2, 2)
    assert observer.lines()[-2] == "call 3: no response" and observer.turns == 2
    assert observer.lines()[-1].startswith("limit: error_during_execution")


def test_events_pass_through_unchanged():
    scenario = get("aurora_run")
    plain = [type(e).__name__ for e in scenario.agent().events(scenario.prompt)]
    watched = [type(e).__name__ for e in Observer().watch(scenario.agent().events(scenario.prompt))]
    assert plain == watched
