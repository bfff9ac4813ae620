"""Workflows versus agents by call counts (Def. 7.1, Prop. 7.2)."""
import pytest

from course.api import Rules, Turn
from course.client import MODEL, make_client
from course.loop import Agent, Limits
from course.scenarios.search import search_tools
from course.workflows import Node, NotAWorkflow, Workflow, agent_call_bound, calls_exactly


def echo(conversation):
    """A toy model that answers with the last words of its prompt."""
    return Turn([{"type": "text", "text": conversation.prompt.split()[-1]}])


def test_chain_visits_each_node_once():
    wf = Workflow([Node("summarise", lambda o: f"Summarise {o['input']}"),
                   Node("translate", lambda o: f"Translate {o['summarise']}")])
    run = wf.run(make_client(echo), MODEL, "text")
    assert run.path == ["summarise", "translate"] and run.calls == 2 <= len(wf.nodes)
    assert run.outputs["translate"] == "text" and len(run.usages) == 2 and run.cost_usd > 0


def test_routing_takes_one_branch():
    wf = Workflow([Node("classify", lambda o: f"Classify {o['input']}", next=lambda o: o["classify"]),
                   Node("refund", lambda o: "Write refund", next=None),
                   Node("billing", lambda o: "Write billing", next=None)])
    run = wf.run(make_client(echo), MODEL, "billing")
    assert run.path == ["classify", "billing"] and run.calls <= len(wf.nodes)


def test_a_cycle_is_not_a_workflow():
    wf = Workflow([Node("generate", lambda o: "Draft again"), Node("evaluate", lambda o: "Judge", next="generate")])
    with pytest.raises(NotAWorkflow, match="generate"):
        wf.run(make_client(echo), MODEL, "x")


@pytest.mark.parametrize("k", [1, 2, 7, 40])
def test_agent_without_cap_makes_exactly_k_calls(k):
    result = Agent(make_client(calls_exactly(k)), MODEL, search_tools(), limits=Limits(max_turns=None)).run("go")
    assert (result.subtype, result.calls) == ("success", k)


@pytest.mark.parametrize("k,cap", [(40, 3), (2, 3), (4, 3)])
def test_agent_with_cap_makes_at_most_t_plus_one(k, cap):
    result = Agent(make_client(calls_exactly(k)), MODEL, search_tools(), limits=Limits(max_turns=cap)).run("go")
    assert result.calls == min(k, agent_call_bound(cap)) and agent_call_bound(cap) == cap + 1


def test_bounds():
    assert agent_call_bound(None) == float("inf")
    with pytest.raises(ValueError):
        calls_exactly(0)
