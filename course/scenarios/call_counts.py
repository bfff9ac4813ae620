"""Workflows versus agents by call counts (Def. 7.1, Prop. 7.2): M_K, a model that makes exactly K
calls; the cart.py bug as a fixed workflow and the model that answers it; 12 x 12 with a multiply
tool."""
from __future__ import annotations

import re
from collections.abc import Callable

from ..api import Conversation, Turn
from ..i18n import tr
from ..tools import Tool, Toolbox, Workspace
from ..workflows import Node, Workflow
from .coding import BUG


def calls_exactly(k: int, tool: str = "search") -> Callable[[Conversation], Turn]:
    """M_K of Prop. 7.2 (2): asks for one `tool` call while fewer than k-1 assistant turns exist,
    then answers."""
    if k < 1:
        raise ValueError("a run makes at least one call")

    def policy(c: Conversation) -> Turn:
        if c.calls_so_far < k - 1:
            return Turn([{"type": "tool_use", "id": "", "name": tool,
                          "input": {"query": f"step {c.calls_so_far + 1}"}}])
        return Turn([{"type": "text", "text": tr("done after {k} calls").format(k=k)}])

    return policy


# --- The cart.py bug as a fixed workflow (seed 003: same success, a fraction of the cost)
# -------------------

FENCE = "```"


def cart_workflow(ws: Workspace) -> Workflow:
    """Run the tests (code), one call to fix cart.py from the failing output and the code (model),
    write the fix and re-run the tests (code), one call to report (model): 2 model calls, always."""

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
        Node("report",
             lambda o: tr("Test output after the fix:\n{tests}\n\nWrite a one-line report.").format(
            tests=o["retest"])),
    ])


def workflow_model(c: Conversation) -> Turn:
    """The toy model answering the cart workflow's two prompts (no tools: everything it needs is in
    the prompt)."""
    prompt = c.prompt
    code = re.search(FENCE + r"python\n(.*?)" + FENCE, prompt, re.S)
    if code and BUG.search(code.group(1)):
        fixed = BUG.sub(lambda line: line.group(0).rstrip() + " * qty", code.group(1))
        return Turn(
            [
                {
                    "type": "text",
                    "text": tr("total() forgot qty.") + "\n" + FENCE + "python\n" + fixed + FENCE,
                }
            ]
        )
    failing = re.findall(r"FAIL (\w+)", prompt)
    report = (tr("Still failing: {names}.").format(names=", ".join(failing)) if failing
              else tr("Fixed cart.py: total() now multiplies by qty; all tests pass."))
    return Turn([{"type": "text", "text": report}])


# --- 12 x 12 with a multiply tool: giving a tool turns a one-shot question into a loop
# ---------------------

def multiply_tools() -> Toolbox:
    return Toolbox([Tool("multiply", tr("Multiply two integers. Read-only."),
                         {"type": "object",
                          "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                          "required": ["a", "b"]}, lambda a, b: str(a * b), read_only=True)])


def eager_tool_user(c: Conversation) -> Turn:
    """Answers "12 x 12" at once without tools; with a multiply tool, calls it first (as measured:
    40 of 40 runs)."""
    if c.results():
        return Turn([{"type": "text", "text": c.result_text(c.results()[0])}])
    if "multiply" in c.tool_names:
        return Turn([{"type": "tool_use", "id": "", "name": "multiply",
                      "input": {"a": 12, "b": 12}}])
    return Turn([{"type": "text", "text": "144"}])
