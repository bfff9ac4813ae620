"""Differential test: lesson 09's agent_loop and course.loop.Agent, run on every scenario, must
agree.

Same requests (one per model call, the same messages in each), the same history and answer, the same
files after. By design they differ only where the test does not look: Agent returns a Result
(subtype, usage, cost, events) where the lesson's loop returns (answer or None, messages); Agent
also has `system`, `max_tool_errors` and a `clock`, and runs consecutive read-only calls of a mixed
response together (the lesson's loop only when all are read-only).
"""
import pytest

from course.gate import Gate
from course.lessons import canonical, final_loop, loop_setup
from course.loop import Limits
from course.scenarios import SCENARIOS


def human(reason: str, messages: list) -> str:
    return "Try another query."


# (name, the lesson loop's keyword arguments, Limits and other Agent options for the same run)
SETTINGS = [
    ("defaults", {}, {}),
    ("max_turns=0", {"max_turns": 0}, {"limits": Limits(max_turns=0)}),
    ("max_turns=1", {"max_turns": 1}, {"limits": Limits(max_turns=1)}),
    ("max_turns=2", {"max_turns": 2}, {"limits": Limits(max_turns=2)}),
    ("max_calls=2", {"max_calls": 2}, {"limits": Limits(max_turns=1)}),
    ("budget", {"max_budget_usd": 0.0005}, {"limits": Limits(max_budget_usd=0.0005)}),
    ("tokens", {"max_total_tokens": 2_000}, {"limits": Limits(max_total_tokens=2_000)}),
    ("timeout 0", {"timeout_s": 0}, {"limits": Limits(timeout_s=0)}),
    ("repeats", {"max_repeats": 2}, {"limits": Limits(max_repeats=2)}),
    ("repeats, a human", {"max_repeats": 2, "escalate": human},
     {"limits": Limits(max_repeats=2), "escalate": human}),
    ("deny search and writes", {"gate": Gate(deny=["search", "write_file"])},
     {"gate": Gate(deny=["search", "write_file"])}),
    ("stop sequence", {"stop_sequences": ["1974"]}, {"stop_sequences": ["1974"]}),
]


def run_both(scenario, loop_options: dict, agent_options: dict):
    """Each loop on its own fresh local API and files: (answer, messages, requests, files) for
    both."""
    gate = scenario.gate or Gate()
    tools = scenario.tools()
    read_only = tuple(d["name"] for d in tools.definitions() if tools.is_read_only(d["name"]))
    loop_options = {"gate": gate, "read_only": read_only, **loop_options}
    mine_api, mine_files = scenario.api(), scenario.workspace()
    answer, messages = final_loop()(*loop_setup(scenario, api=mine_api, workspace=mine_files),
                                    **loop_options)
    ref_api, ref_files = scenario.api(), scenario.workspace()
    result = scenario.agent(api=ref_api, workspace=ref_files, **agent_options).run(scenario.prompt)
    return ((answer, canonical(messages),
             [canonical(r.body["messages"]) for r in mine_api.requests], mine_files.files),
            (result.text, canonical(result.messages),
             [canonical(r.body["messages"]) for r in ref_api.requests], ref_files.files))


@pytest.mark.parametrize("setting", SETTINGS, ids=[s[0] for s in SETTINGS])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_lesson_loop_and_agent_make_the_same_calls_history_and_outcome(name, setting):
    _, loop_options, agent_options = setting
    mine, reference = run_both(SCENARIOS[name], loop_options, agent_options)
    assert len(mine[2]) == len(reference[2]), "a different number of model calls"
    assert mine[2] == reference[2], "different requests"
    assert mine[1] == reference[1], "a different history"
    assert mine[0] == reference[0], "a different answer"
    assert mine[3] == reference[3], "different files after the run"


def test_the_differential_test_sees_a_loop_that_runs_one_tool_too_many():
    scenario = SCENARIOS["always_tool"]
    mine, reference = run_both(scenario, {"max_turns": 2}, {"limits": Limits(max_turns=3)})
    assert mine[2] != reference[2]
