"""Scenarios a real harness runs with its own tools on a scratch workspace: the Model's 9.3 prompt
(count the Python files) and its Example 4.3 (the Blog's cart.py fixed in three tool turns).

The toy model does each step with whatever tools the request declares, as a model does: Claude
Code's Glob, Bash, Read and Edit (absolute paths, in the working directory its system message
names), the course's list_files, run_python, read_file and edit_file, or a lone `bash`
(mini-swe-agent's only tool, which it ends by running `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`).
"""
from __future__ import annotations

import re

from ..api import Conversation, Turn
from ..gate import BLOCKED, DENIED
from ..i18n import deferred, tr
from .base import Scenario, call, last_turn, one_task, say, says
from .coding import BUG, CART, TEST_CART
from .hands import Hands, output

# mini-swe-agent stops when a command prints this first
SUBMIT = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"


def unable(step: str) -> Turn:
    return say(tr("I cannot {step} with the tools I was given.").format(step=tr(step)))


# --- count_python_files: the Model's 9.3 prompt
# -----------------------------------------------------------------

FILES = {"app.py": "print('app')\n", "util.py": "def helper():\n    return 1\n",
         "test_app.py": "import app\n",
         "README.md": "# A small project\n", "data.csv": "a,b\n1,2\n"}


@one_task
def count_policy(c: Conversation) -> Turn:
    """List the Python files (Glob, list_files or ls), then say how many there are."""
    done = last_turn(c)
    if not done:
        step = Hands(c).list_python()
        return say(tr("I'll list the Python files."), step) if step else unable(
            deferred("list the files"))
    _, result = done[-1]
    if result.get("is_error"):
        return say(
            tr("I could not list the files ({error}).").format(error=output(c, result)[:120])
        )
    names = sorted({m.rsplit("/", 1)[-1] for m in re.findall(r"[\w./-]+\.py\b", output(c, result))})
    return say(
        tr("There are {n} Python files: {names}.").format(n=len(names), names=", ".join(names)))


COUNT_PYTHON_FILES = Scenario(
    "count_python_files", deferred("The Model's 9.3: count the Python files"),
    deferred("Count the Python files in this directory."), count_policy, files=FILES,
    notes="2 calls: list the files (Glob, list_files or Bash's ls), then the answer: 3 Python "
          "files")

# --- fix_cart_in_three_turns: Example 4.3
# -------------------------------------------------------------------------


@one_task
def three_turns_policy(c: Conversation) -> Turn:
    """Example 4.3: run the tests; read the code and the tests; edit and run the tests again in one
    turn; report. A lone bash (mini-swe-agent) then submits."""
    hands, done = Hands(c), last_turn(c)
    if not done:
        step = hands.run("test_cart.py")
        return say(tr("I'll run the tests first."), step) if step else unable(
            deferred("run the tests"))
    uses = [u["name"] for u, _ in done]
    texts = [output(c, r) for _, r in done]
    # the CLI's refusals
    if any(r.get("is_error") and ("ermission" in output(c, r) or "approval" in output(c, r)
                                  # the course's
                                  or says(output(c, r), DENIED, BLOCKED)) for _, r in done):
        return say(tr("I was not allowed to go on ({reason}).").format(reason=texts[0][:120]))
    if SUBMIT in texts[-1]:
        return say(tr("Submitted: cart.py multiplies price by qty and the tests pass."))
    # the output of the last command
    ran = texts[-1] if uses[-1] in ("Bash", "run_python", "bash") else ""
    if ran and "FAIL" not in ran and "PASS" in ran:
        if hands.can("bash") and not hands.can("Bash") and not hands.can("run_python"):
            return Turn([call("bash", command=f"echo {SUBMIT}")])
        return say(tr("The cause was total() adding the unit price and forgetting qty; it now adds "
                      "price * qty, and all 3 tests pass."))
    bug = next((BUG.search(t) for t in texts if BUG.search(t)), None)
    if bug:
        edit, rerun = (
            hands.edit("cart.py", bug.group(0), bug.group(0).rstrip() + " * qty"),
            hands.run("test_cart.py"),
        )
        if not (edit and rerun):
            return unable(deferred("edit cart.py and run the tests again"))
        return say(tr("total() adds price but never multiplies it by qty."), edit, rerun)
    if ran:
        code, tests = hands.read("cart.py"), hands.read("test_cart.py")
        if not (code and tests):
            return unable(deferred("read the files"))
        return say(tr("Two tests fail. I'll read the code and the tests."), code, tests)
    return say(tr("I could not fix cart.py ({error}).").format(error=texts[-1][:120]))


FIX_CART_IN_THREE_TURNS = Scenario(
    "fix_cart_in_three_turns", deferred("Example 4.3: the cart.py fix in three tool turns"),
    deferred("The tests in test_cart.py fail (run them with python3 test_cart.py). Fix cart.py."),
    three_turns_policy, files={"cart.py": CART, "test_cart.py": TEST_CART},
    notes="4 calls: run the tests; read both files; edit and re-run in one turn; report (Claude "
          "Code: Bash, Read, Edit; mini-swe-agent: bash, then it submits)")
