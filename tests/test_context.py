"""Context growth (Prop. 5.2), budgets (Prop. 5.4), clearing, compaction and prompt caching."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from course.client import MODEL
from course.context import (
    CLEARED,
    EditedClient,
    break_even_calls,
    cached_cost,
    clear_tool_results,
    compact,
    costs,
    editing_messages,
    inputs_per_call,
    loop_input_cost,
    mark_for_caching,
    max_calls_for_budget,
    reported_inputs,
    summary,
    total_lower_bound,
    turn_sizes,
    uncached_cost,
    window_bound,
)
from course.loop import Limits
from course.messages import check_invariant
from course.scenarios import get


def run_always_tool(turns, edit=None, system=None):
    """The model that always asks for a tool, stopped by max_turns; `edit` edits every request it
    sends."""
    scenario = get("always_tool")
    agent = scenario.agent(limits=Limits(max_turns=turns))
    agent.system = system
    if edit:
        agent.client = EditedClient(agent.client, edit)
    return agent.run(scenario.prompt)


def test_example_5_3():
    ns = inputs_per_call(5_000, [2_000] * 9)
    assert (ns[0], ns[1], ns[9]) == (5_000, 7_000, 23_000)
    assert sum(ns) == total_lower_bound(10, 5_000, 2_000) == 140_000
    assert window_bound(200_000, 5_000, 2_000) == 98
    assert window_bound(5_000, 5_000, 2_000) == 1  # the first call just fits
    assert [window_bound(W, 5_000, 2_000) for W in (4_999, 1_000)] == [0, 0]  # no call fits


def test_exercise_10_3_one_large_read():
    ns = inputs_per_call(8_000, [1_500, 1_500, 40_000] + [1_500] * 6)
    assert (ns[2], ns[3], ns[9]) == (11_000, 51_000, 60_000)
    assert sum(ns) == 417_000
    assert sum(inputs_per_call(8_000, [1_500] * 9)) == 147_500


@given(st.integers(0, 10_000), st.lists(st.integers(1, 5_000), max_size=30), st.integers(1, 5_000))
def test_prop_5_2_bounds(s, deltas, c):
    ns = inputs_per_call(s, [max(d, c) for d in deltas])
    assert sum(ns) >= total_lower_bound(len(ns), s, c)
    assert len(ns) <= window_bound(max(ns), s, c)  # the window that just fits the last call


def test_identity_holds_on_what_the_local_api_reports():
    result = run_always_tool(6)
    ns = reported_inputs(result.usages)
    assert len(ns) == 7
    assert ns == inputs_per_call(ns[0], turn_sizes(result.messages))


def test_budget_overshoot_is_one_response():
    scenario = get("always_tool")
    agent = scenario.agent(limits=Limits(max_turns=None, max_budget_usd=10), cost=costs([3]))
    result = agent.run(scenario.prompt)
    assert (result.subtype, result.calls, result.cost_usd) == ("error_max_budget_usd", 4, 12)
    assert result.calls <= max_calls_for_budget(10, 3)


def test_budget_bound_is_tight():
    # exercise 10.4: B=10, c_max=3, delta=0.5 -> spend B + c_max - delta
    scenario = get("always_tool")
    agent = scenario.agent(limits=Limits(max_turns=None, max_budget_usd=10),
                           cost=costs([3, 3, 3, 0.5, 3]))
    assert agent.run(scenario.prompt).cost_usd == 12.5


def test_max_calls_for_budget():
    assert max_calls_for_budget(0.005, 0.0125) == 1
    assert max_calls_for_budget(10, 3) == 4
    assert max_calls_for_budget(9, 3) == 3


def history(turns=3):
    return run_always_tool(turns).messages


def test_clearing_keeps_the_invariant_and_the_last_results():
    h = history(4)
    cleared = clear_tool_results(h, keep_last=1)
    check_invariant(cleared)
    results = [b for m in cleared if m["role"] == "user" for b in m["content"]
               if b["type"] == "tool_result"]
    assert [r["content"] == CLEARED for r in results] == [True, True, True, False]
    assert h[2]["content"][0]["content"] != CLEARED  # the original is untouched


def test_clearing_sends_fewer_tokens():
    plain = reported_inputs(run_always_tool(5).usages)
    cleared = reported_inputs(run_always_tool(5, edit=editing_messages(clear_tool_results)).usages)
    assert cleared[:2] == plain[:2] and cleared[-1] < plain[-1]


def test_compaction_keeps_the_invariant_and_the_last_turn():
    h = history(4)
    c = compact(h, keep_last=1)
    check_invariant(c)
    assert len(c) == 3 and c[1:] == h[-2:]
    assert "Task: Tell me everything about Aurora Run." in c[0]["content"][0]["text"]
    assert c[0]["content"][0]["text"].count("- search(") == 3
    assert compact(h[:1]) == h[:1]


def test_summary_marks_errors():
    h = [{"role": "user", "content": "go"},
         {"role": "assistant",
          "content": [{"type": "tool_use", "id": "u1", "name": "read", "input": {"p": 1}}]},
         {"role": "user",
          "content": [{"type": "tool_result", "tool_use_id": "u1", "content": "nope",
                       "is_error": True}]}]
    assert summary(h).splitlines()[-1] == '- read({"p": 1}) -> error: nope'


def test_caching_arithmetic():
    assert break_even_calls() == 2 and break_even_calls(write=2.0) == 3
    assert cached_cost(2, 10_000, 1.0) < uncached_cost(2, 10_000, 1.0)
    assert cached_cost(1, 10_000, 1.0) > uncached_cost(1, 10_000, 1.0)
    ns = inputs_per_call(5_000, [2_000] * 9)
    # Haiku 5.5: $0.10 per million
    assert loop_input_cost(ns, MODEL, cached=False) == pytest.approx(0.014)
    assert loop_input_cost(ns, MODEL, cached=True) == pytest.approx(0.004045)
    assert loop_input_cost(ns, MODEL, cached=True, minimum=10**6) == pytest.approx(0.014)


def test_caching_on_the_local_api():
    # a prompt below the minimum is silently not cached
    short = run_always_tool(3, edit=mark_for_caching)
    assert all(u["cache_creation_input_tokens"] == u["cache_read_input_tokens"] == 0
               for u in short.usages)
    rules = "Follow the house rules. " * 300
    long = run_always_tool(3, edit=mark_for_caching, system=rules)
    first, *rest = long.usages
    assert first["cache_creation_input_tokens"] > 1024 and first["cache_read_input_tokens"] == 0
    assert all(u["cache_read_input_tokens"] > 0 for u in rest)
    assert long.cost_usd < run_always_tool(3, system=rules).cost_usd


def test_mark_for_caching_uses_at_most_four_breakpoints():
    h = history(3)
    request = mark_for_caching({"system": "s", "messages": h})
    marked = [(i, j) for i, m in enumerate(request["messages"])
              for j, b in enumerate(m["content"]) if "cache_control" in b]
    assert marked == [(len(h) - 3, len(h[-3]["content"]) - 1),
                      (len(h) - 1, len(h[-1]["content"]) - 1)]
    assert "cache_control" in request["system"][-1]
    # the loop's history is untouched
    assert not any("cache_control" in b for m in h for b in m["content"])
