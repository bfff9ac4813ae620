"""Workflows versus agents, counted in model calls (Def. 7.1, Prop. 7.2).

A workflow is a program with a finite set V of model-call nodes that visits
each node at most once per run (which node comes next may depend on the input
and on the outputs so far). An agent is the loop of Def. 3.1. Prop. 7.2: a
workflow makes at most |V| calls whatever the model says; an agent without a
turn cap can be made to make any number of calls; with a cap T, at most T+1.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from .api import Conversation, Turn
from .i18n import tr
from .messages import as_dict, text_of, user
from .pricing import cost_usd
from .scenarios.coding import BUG
from .tools import Tool, Toolbox, Workspace

FOLLOWING = "<following>"  # Node.next default: the node listed after this one


class NotAWorkflow(RuntimeError):
    """A run came back to a node it had visited: that is a loop, an agent, not a workflow (Def. 7.1)."""


@dataclass
class Node:
    """One step of a workflow: a model call (`prompt`) or plain code (`code`), and which step comes next."""

    name: str
    prompt: Callable[[dict], str] | None = None  # outputs so far ({"input": ..., step name: its text}) -> the prompt
    code: Callable[[dict], str] | None = None  # or: code run instead of a model call (tests, file writes, checks)
    next: Callable[[dict], str | None] | str | None = FOLLOWING  # a step name, None to finish, or a router


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
    """A fixed path of model calls (Def. 7.1): chaining, routing, parallelization, unrolled evaluation."""

    nodes: list[Node]
    max_tokens: int = 1024

    @property
    def model_nodes(self) -> int:
        """|V|: the steps that call the model."""
        return sum(1 for n in self.nodes if n.code is None)

    def run(self, client, model: str, input: str) -> WorkflowRun:
        """Visit steps from the first; each model step is one call; revisiting raises NotAWorkflow."""
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


def calls_exactly(k: int, tool: str = "search") -> Callable[[Conversation], Turn]:
    """M_K of Prop. 7.2 (2): asks for one `tool` call while fewer than k-1 assistant turns exist, then answers."""
    if k < 1:
        raise ValueError("a run makes at least one call")

    def policy(c: Conversation) -> Turn:
        if c.calls_so_far < k - 1:
            return Turn([{"type": "tool_use", "id": "", "name": tool,
                          "input": {"query": f"step {c.calls_so_far + 1}"}}])
        return Turn([{"type": "text", "text": tr("done after {k} calls").format(k=k)}])

    return policy


def agent_call_bound(max_turns: int | None) -> float:
    """The most calls an agent can make over all models: T+1 with a cap, unbounded (inf) without (Prop. 7.2)."""
    return float("inf") if max_turns is None else max_turns + 1


# --- The cart.py bug as a fixed workflow (seed 003: same success, a fraction of the cost) -------------------

FENCE = "```"


def cart_workflow(ws: Workspace) -> Workflow:
    """Run the tests (code), one call to fix cart.py from the failing output and the code (model), write the fix
    and re-run the tests (code), one call to report (model): 2 model calls, always."""

    def run_tests(outputs: dict) -> str:
        return ws.run_python("test_cart.py")[1]

    def apply_fix(outputs: dict) -> str:
        fixed = re.search(FENCE + r"python\n(.*?)" + FENCE, outputs["fix"], re.S)
        if fixed:
            ws.write("cart.py", fixed.group(1))
        return ws.run_python("test_cart.py")[1]

    return Workflow([
        Node("test", code=run_tests),
        Node("fix", lambda o: tr("The tests fail:\n{tests}\n\ncart.py:\n{code}\n\n"
                                 "Return the corrected cart.py in one python code block.").format(
            tests=o["test"], code=f"{FENCE}python\n{ws.read('cart.py')}{FENCE}")),
        Node("retest", code=apply_fix),
        Node("report", lambda o: tr("Test output after the fix:\n{tests}\n\nWrite a one-line report.").format(
            tests=o["retest"])),
    ])


def workflow_model(c: Conversation) -> Turn:
    """The toy model answering the cart workflow's two prompts (no tools: everything it needs is in the prompt)."""
    prompt = c.prompt
    code = re.search(FENCE + r"python\n(.*?)" + FENCE, prompt, re.S)
    if code and BUG.search(code.group(1)):
        fixed = BUG.sub(lambda line: line.group(0).rstrip() + " * qty", code.group(1))
        return Turn([{"type": "text", "text": tr("total() forgot qty.") + "\n" + FENCE + "python\n" + fixed + FENCE}])
    failing = re.findall(r"FAIL (\w+)", prompt)
    report = (tr("Still failing: {names}.").format(names=", ".join(failing)) if failing
              else tr("Fixed cart.py: total() now multiplies by qty; all tests pass."))
    return Turn([{"type": "text", "text": report}])


# --- 12 x 12 with a multiply tool: giving a tool turns a one-shot question into a loop ---------------------

def multiply_tools() -> Toolbox:
    return Toolbox([Tool("multiply", tr("Multiply two integers. Read-only."),
                         {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                          "required": ["a", "b"]}, lambda a, b: str(a * b), read_only=True)])


def eager_tool_user(c: Conversation) -> Turn:
    """Answers "12 x 12" at once without tools; with a multiply tool, calls it first (as measured: 40 of 40 runs)."""
    if c.results():
        return Turn([{"type": "text", "text": c.result_text(c.results()[0])}])
    if "multiply" in c.tool_names:
        return Turn([{"type": "tool_use", "id": "", "name": "multiply", "input": {"a": 12, "b": 12}}])
    return Turn([{"type": "text", "text": "144"}])
