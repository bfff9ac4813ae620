"""Workflows versus agents by call counts (Def. 7.1, Prop. 7.2)."""
import pytest

from course.api import Conversation, Turn
from course.client import MODEL, make_client
from course.loop import Agent, Limits
from course.scenarios import get
from course.scenarios.call_counts import (
    calls_exactly,
    cart_workflow,
    eager_tool_user,
    multiply_tools,
    workflow_model,
)
from course.scenarios.search import search_tools
from course.workflows import Node, NotAWorkflow, Workflow, agent_call_bound


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
    wf = Workflow([Node("classify", lambda o: f"Classify {o['input']}",
                        next=lambda o: o["classify"]),
                   Node("refund", lambda o: "Write refund", next=None),
                   Node("billing", lambda o: "Write billing", next=None)])
    run = wf.run(make_client(echo), MODEL, "billing")
    assert run.path == ["classify", "billing"] and run.calls <= len(wf.nodes)


def test_a_cycle_is_not_a_workflow():
    wf = Workflow([Node("generate", lambda o: "Draft again"),
                   Node("evaluate", lambda o: "Judge", next="generate")])
    with pytest.raises(NotAWorkflow, match="generate"):
        wf.run(make_client(echo), MODEL, "x")


@pytest.mark.parametrize("k", [1, 2, 7, 40])
def test_agent_without_cap_makes_exactly_k_calls(k):
    result = Agent(make_client(calls_exactly(k)), MODEL, search_tools(),
                   limits=Limits(max_turns=None)).run("go")
    assert (result.subtype, result.calls) == ("success", k)


@pytest.mark.parametrize("k,cap", [(40, 3), (2, 3), (4, 3)])
def test_agent_with_cap_makes_at_most_t_plus_one(k, cap):
    result = Agent(make_client(calls_exactly(k)), MODEL, search_tools(),
                   limits=Limits(max_turns=cap)).run("go")
    assert result.calls == min(k, agent_call_bound(cap)) and agent_call_bound(cap) == cap + 1


def test_bounds():
    assert agent_call_bound(None) == float("inf")
    with pytest.raises(ValueError):
        calls_exactly(0)


def test_cart_workflow_fixes_the_bug_in_two_calls_cheaper_than_the_agent():
    scenario = get("fix_failing_test")
    workspace = scenario.workspace()
    workflow = cart_workflow(workspace)
    run = workflow.run(make_client(workflow_model), MODEL, scenario.prompt)
    assert run.path == ["test", "fix", "retest", "report"]
    assert run.calls == workflow.model_nodes == 2
    assert workspace.run_python("test_cart.py")[0] == 0
    assert "FAIL" in run.outputs["test"] and "FAIL" not in run.outputs["retest"]
    assert run.outputs["report"].startswith("Fixed cart.py")
    agent = scenario.run()
    assert agent.subtype == "success" and agent.calls > run.calls and agent.cost_usd > run.cost_usd


def test_workflow_model_reports_what_still_fails():
    reply = workflow_model(Conversation({"messages": [{"role": "user",
                                                       "content": "FAIL test_coupon\nreport"}]}))
    assert reply.content[0]["text"] == "Still failing: test_coupon."


def test_a_tool_turns_a_one_shot_question_into_a_loop():
    with_tool = Agent(make_client(eager_tool_user), MODEL, multiply_tools()).run("What is 12 x 12?")
    without = Agent(make_client(eager_tool_user), MODEL).run("What is 12 x 12?")
    assert (with_tool.calls, with_tool.text) == (2, "144")
    assert (without.calls, without.text) == (1, "144")


def test_a_node_with_neither_a_prompt_nor_code_is_a_clear_error():
    """Found by mypy: such a node was called as if it had a prompt ('NoneType' object is not
    callable)."""
    with pytest.raises(ValueError, match="node 'empty' has neither a prompt nor code"):
        Workflow([Node("empty")]).run(make_client(echo), MODEL, "x")
