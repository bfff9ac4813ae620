"""Workflows versus agents, counted in model calls (Def. 7.1, Prop. 7.2).

A workflow is a program with a finite set V of model-call nodes that visits
each node at most once per run (which node comes next may depend on the input
and on the outputs so far). An agent is the loop of Def. 3.1. Prop. 7.2: a
workflow makes at most |V| calls whatever the model says; an agent without a
turn cap can be made to make any number of calls; with a cap T, at most T+1.
The lesson's toy models and tools (M_K, the cart fix as a workflow, 12 x 12) are in
`course.scenarios.call_counts`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .i18n import tr
from .messages import as_dict, text_of, user
from .pricing import cost_usd

FOLLOWING = "<following>"  # Node.next default: the node listed after this one


class NotAWorkflow(RuntimeError):
    """A run came back to a node it had visited: that is a loop, an agent, not a workflow (Def.
    7.1)."""


@dataclass
class Node:
    """One step of a workflow: a model call (`prompt`) or plain code (`code`), and which step comes
    next."""

    name: str
    # outputs so far ({"input": ..., step name: its text}) -> the prompt
    prompt: Callable[[dict], str] | None = None
    # or: code run instead of a model call (tests, file writes, checks)
    code: Callable[[dict], str] | None = None
    # a step name, None to finish, or a router
    next: Callable[[dict], str | None] | str | None = FOLLOWING


@dataclass
class WorkflowRun:
    outputs: dict  # "input" and each visited step's text
    path: list[str]  # the steps visited, in order
    usages: list[dict] = field(default_factory=list)  # one per model call
    cost_usd: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.usages)


@dataclass
class Workflow:
    """A fixed path of model calls (Def. 7.1): chaining, routing, parallelization, unrolled
    evaluation."""

    nodes: list[Node]
    max_tokens: int = 1024

    @property
    def model_nodes(self) -> int:
        """|V|: the steps that call the model."""
        return sum(1 for n in self.nodes if n.code is None)

    def run(self, client, model: str, input: str) -> WorkflowRun:
        """Visit steps from the first; each model step is one call; revisiting raises
        NotAWorkflow."""
        by_name = {n.name: n for n in self.nodes}
        order = [n.name for n in self.nodes]
        run = WorkflowRun({"input": input}, [])
        name: str | None = order[0] if order else None
        while name is not None:
            if name in run.path:
                raise NotAWorkflow(tr("node {name!r} visited twice: {path}").format(
                    name=name, path=" -> ".join(run.path + [name])))
            node = by_name[name]
            run.path.append(name)
            if node.code is not None:
                run.outputs[name] = node.code(run.outputs)
            elif node.prompt is None:
                raise ValueError(
                    tr("node {name!r} has neither a prompt nor code").format(name=name)
                )
            else:
                response = client.messages.create(model=model, max_tokens=self.max_tokens,
                                                  messages=[user(node.prompt(run.outputs))])
                run.outputs[name] = text_of(response)
                run.usages.append(as_dict(response.usage))
                run.cost_usd += cost_usd(model, response.usage)
            name = self._after(node, order, run.outputs)
        return run

    @staticmethod
    def _after(node: Node, order: list[str], outputs: dict) -> str | None:
        if node.next == FOLLOWING:
            i = order.index(node.name) + 1
            return order[i] if i < len(order) else None
        return node.next(outputs) if callable(node.next) else node.next


def agent_call_bound(max_turns: int | None) -> float:
    """The most calls an agent can make over all models: T+1 with a cap, unbounded (inf) without
    (Prop. 7.2)."""
    return float("inf") if max_turns is None else max_turns + 1
