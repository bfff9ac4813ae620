"""What the observer logs each turn, read from the loop's events."""
from course.context import reported_inputs
from course.loop import Limits
from course.observe import Observer
from course.scenarios import get


def ticking():
    """A clock that advances one second per reading."""
    t = iter(range(10_000))
    return lambda: float(next(t))


def test_one_record_per_call_with_tools_and_tokens():
    scenario = get("aurora_run")
    observer = Observer(clock=ticking())
    result = observer.run(scenario.agent(clock=ticking()), scenario.prompt)
    assert [r.index for r in observer.records] == [1, 2, 3] and result.calls == 3
    assert [r.stop_reason for r in observer.records] == ["tool_use", "tool_use", "end_turn"]
    assert [[t.input["query"] for t in r.tools] for r in observer.records] == [["Aurora Run"], ["Mara Voss"], []]
    assert [r.input_tokens for r in observer.records] == reported_inputs(result.usages)
    assert observer.records[-1].total_tokens == sum(result.usage[k] for k in ("input_tokens", "output_tokens"))
    assert observer.records[-1].total_cost_usd == result.cost_usd
    assert all(r.seconds > 0 for r in observer.records)
    assert observer.records[-1].total_seconds == sum(r.seconds for r in observer.records)
    assert observer.records[0].tools[0].preview.startswith("Aurora Run: Aurora Run is a 1998 novel")
    assert all(t.latency_s >= 1 for r in observer.records for t in r.tools)  # the agent's clock ticks during a call


def test_log_lines_name_errors_and_limits_without_timings():
    scenario = get("always_tool")
    observer = Observer(clock=ticking())
    observer.run(scenario.agent(limits=Limits(max_turns=1)), scenario.prompt)
    lines = observer.lines()
    assert lines[0].startswith("turn 1: stop_reason=tool_use in=")
    assert lines[-1].startswith("limit: error_max_turns")
    assert not any("second" in line or " s " in line for line in lines)


def test_events_pass_through_unchanged():
    scenario = get("aurora_run")
    plain = [type(e).__name__ for e in scenario.agent().events(scenario.prompt)]
    watched = [type(e).__name__ for e in Observer().watch(scenario.agent().events(scenario.prompt))]
    assert plain == watched
