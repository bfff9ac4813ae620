"""Coding scenarios on a workspace: the cart.py bug and the four broken functions (seed 003),
the scripted example of 9.1 with a denied write (seed 000)."""
from __future__ import annotations

import json
import re

from ..api import Conversation, Turn
from ..api.toolset import for_role, loaded, unloaded
from ..gate import DENIED, Gate
from ..goal_loop import ACHIEVED, IMPOSSIBLE, NOT_YET, Verdict
from ..i18n import deferred, tr
from ..tools import Workspace
from .base import Scenario, call, last_turn, one_task, refused, say, says, since_request
from .hands import Hands, output

# --- fix_failing_test: total() forgets qty; 3 tests, 2 fail
# -------------------------------------------

CART = '''def total(items, coupon=None):
    """items: list of (name, unit_price, qty). coupon: 'SAVE10' = 10% off the subtotal."""
    subtotal = 0
    for name, price, qty in items:
        subtotal += price
    if coupon == "SAVE10":
        subtotal = subtotal * 0.9
    return round(subtotal, 2)
'''
TEST_CART = '''import sys
from cart import total


def test_quantity():
    assert total([("apple", 100, 3)]) == 300


def test_coupon():
    assert total([("pen", 50, 2), ("book", 200, 1)], "SAVE10") == 270.0


def test_empty():
    assert total([]) == 0


failed = 0
for test in (test_quantity, test_coupon, test_empty):
    try:
        test()
        print("PASS", test.__name__)
    except AssertionError:
        failed += 1
        print("FAIL", test.__name__)
sys.exit(1 if failed else 0)
'''
# the line that forgets qty, however it is spaced
BUG = re.compile(r"^ *subtotal \+= +price *$", re.M)


@one_task
def fix_test_policy(c: Conversation) -> Turn:
    """Run the tests, read both files at once, fix the line, run the tests again, report."""
    if not c.results():
        return say(tr("I'll run the tests to see what fails."),
                   call("run_python", path="test_cart.py"))
    if refused(c):
        return say(tr("I was not allowed to go on ({reason}), so cart.py is not fixed.").format(
            reason=refused(c)))
    (use, result), *_ = last_turn(c)
    output = c.result_text(result)
    if use["name"] == "run_python" and not result.get("is_error"):
        return say(tr("Fixed: total() added the unit price once per line and forgot qty; it now "
                      "adds price * qty. All 3 tests pass."))
    if use["name"] == "run_python":
        failing = ", ".join(re.findall(r"FAIL (\w+)", output)) or tr("the tests")
        return say(tr("{failing} fail. I'll read the code and the tests.").format(failing=failing),
                   call("read_file", path="cart.py"), call("read_file", path="test_cart.py"))
    if use["name"] == "read_file" and result.get("is_error"):
        return say(tr("I cannot read cart.py ({error}), so I cannot fix it.").format(error=output))
    bug = BUG.search(output) if use["name"] == "read_file" else None
    if bug:
        return say(tr("total() adds price but never multiplies it by qty."),
                   call("edit_file", path="cart.py", old=bug.group(0),
                        new=bug.group(0).rstrip() + " * qty"))
    if use["name"] == "edit_file" and result.get("is_error"):
        return say(tr("The edit did not apply; I'll read the file again."),
                   call("read_file", path="cart.py"))
    return say(tr("Running the tests again."), call("run_python", path="test_cart.py"))


FIX_FAILING_TEST = Scenario(
    "fix_failing_test", deferred("Fix a failing test: the cart.py qty bug"),
    deferred("The tests in test_cart.py fail. Run them with run_python, then fix cart.py."),
    fix_test_policy, files={"cart.py": CART, "test_cart.py": TEST_CART},
    notes="5 calls: run the tests, read both files in one turn, edit price -> price * qty, re-run, "
          "report")

# --- broken_functions: f1-f4 broken, check.py; the model fixes one function per request
# ------------------

FUNCS = '''def f1(numbers):
    """The sum of a list."""
    return sum(numbers) + 1


def f2(text):
    """The text reversed."""
    return text


def f3(n):
    """Is n even?"""
    return n % 2 == 1


def f4(values):
    """The largest value."""
    return min(values)


def f5(a, b):
    """The product of a and b."""
    return a * b
'''
CHECK = '''import sys
import funcs

cases = {
    "f1": lambda: funcs.f1([1, 2, 3]) == 6,
    "f2": lambda: funcs.f2("abc") == "cba",
    "f3": lambda: funcs.f3(4) is True and funcs.f3(5) is False,
    "f4": lambda: funcs.f4([3, 9, 2]) == 9,
    "f5": lambda: funcs.f5(6, 7) == 42,
}
broken = [name for name, ok in cases.items() if not ok()]
print("NG: " + ",".join(broken) if broken else "ALL OK")
sys.exit(1 if broken else 0)
'''
# what the toy model "knows" about each function: the wrong line and the right one
FUNC_FIXES = {
    "f1": ("return sum(numbers) + 1", "return sum(numbers)"),
    "f2": ("return text\n", "return text[::-1]\n"),
    "f3": ("return n % 2 == 1", "return n % 2 == 0"),
    "f4": ("return min(values)", "return max(values)"),
}


def not_ok(output: str) -> list[str]:
    """The function names in check.py's `NG: f1,f2` line (empty when it printed ALL OK)."""
    m = re.search(r"NG: ([\w,]+)", output)
    return m.group(1).split(",") if m else []


def ran_check(use: dict) -> bool:
    """Whether a call ran check.py: run_python, or a shell (Claude Code's Bash, a lone bash) running
    it."""
    return use["name"] == "run_python" or "check.py" in str(use["input"].get("command", ""))


def one_fix_policy(c: Conversation) -> Turn:
    """Per request (the prompt or feedback): run check.py, read funcs.py, fix the first NG function,
    run check.py again, then report and stop, as asked; with the course's tools or Claude Code's
    (Bash, Read, Edit). Asked by Claude Code's /goal whether its condition holds, it answers as
    checker_verdict does."""
    if judging(c):
        verdict = checker_verdict(c.messages[:c.request_at])
        return say(json.dumps({"ok": verdict.status == ACHIEVED, "reason": verdict.reason,
                               "impossible": verdict.status == IMPOSSIBLE}, ensure_ascii=False))
    done = since_request(c)
    # the course's tools when offered, even deferred
    hands = None if offers(c, "run_python") else Hands(c)
    check = hands and hands.run("check.py") or call("run_python", path="check.py")
    read = hands and hands.read("funcs.py") or call("read_file", path="funcs.py")
    if not done:
        return say(tr("I'll run the checker first."), check)
    if refused(c):
        return say(tr("I was not allowed to go on ({reason}).").format(reason=refused(c)))
    use, result = done[-1]
    text = output(c, result)
    checks = [output(c, r) for u, r in done if ran_check(u)]
    if ran_check(use):
        if "ALL OK" in text:
            return say(tr("check.py prints ALL OK: every function works."))
        if any(u["name"] in ("edit_file", "Edit") and not r.get("is_error") for u, r in done):
            return say(tr("I fixed one function as asked; check.py now prints {line}. Stopping "
                          "here.").format(
                line="NG: " + ",".join(not_ok(text))))
        return say(tr("{name} is broken. I'll read funcs.py.").format(name=not_ok(text)[0]), read)
    if use["name"] in ("edit_file", "Edit") and result.get("is_error"):
        return say(tr("The edit did not apply; I'll read funcs.py again."), read)
    broken = [f for f in not_ok(checks[-1]) if f in FUNC_FIXES] if checks else []
    if use["name"] in ("read_file", "Read") and broken and FUNC_FIXES[broken[0]][0] in text:
        old, new = FUNC_FIXES[broken[0]]
        return say(
            tr("{name} is wrong: {old} should be {new}.").format(name=broken[0], old=old.strip(),
                                                                       new=new.strip()),
            hands and hands.edit("funcs.py", old, new)
            or call("edit_file", path="funcs.py", old=old, new=new))
    return say(tr("Running the checker."), check)


def offers(c: Conversation, wanted: str) -> bool:
    """Whether the request offers a tool of this role, callable now or deferred until a tool search
    loads it."""
    return for_role(loaded(c.body) + unloaded(c.body), wanted) is not None


def judging(c: Conversation) -> bool:
    """Whether the request is Claude Code's /goal evaluator asking if its condition holds: an answer
    constrained to the stop-condition hook's schema, {ok, reason, impossible}."""
    schema = ((c.body.get("output_config") or {}).get("format") or {}).get("schema") or {}
    return {"ok", "reason"} <= set(schema.get("properties") or {})


def checker_verdict(messages: list) -> Verdict:
    """The goal evaluator: like /goal's, it reads only the conversation (the last check.py output in
    it)."""
    c = Conversation({"messages": messages})
    outputs = [output(c, r) for u, r in c.all_results() if ran_check(u)]
    if not outputs:
        return Verdict(NOT_YET, tr("check.py has not been run; run it to show the state."))
    if says(outputs[-1], DENIED):
        return Verdict(IMPOSSIBLE,
                       tr("the checker cannot be run: {output}").format(output=outputs[-1]))
    if "ALL OK" in outputs[-1]:
        return Verdict(ACHIEVED, tr("check.py prints ALL OK"))
    left = not_ok(outputs[-1])
    return Verdict(NOT_YET, tr("the goal is check.py printing ALL OK, but it prints NG: {ng}; "
                               "{names} still need fixing.").format(
                                   ng=",".join(left), names=", ".join(left)))


def all_ok(ws: Workspace) -> bool:
    """The outer loop's success condition: check.py exits 0 on the files as they are now."""
    return ws.run_python("check.py")[0] == 0


BROKEN_FUNCTIONS = Scenario(
    "broken_functions", deferred("Four broken functions, one fix per session"),
    # the Blog's request, worded so the model may stop early; the Japanese is the Blog's own
    # (「1ターンに」)
    deferred("Make check.py print ALL OK. The functions to fix are in funcs.py; fix only one "
             "function per turn, then report and stop."), one_fix_policy,
    files={"funcs.py": FUNCS, "check.py": CHECK}, evaluator=checker_verdict, is_done=all_ok,
    notes="a plain run fixes f1 and stops (NG: f2,f3,f4); the goal loop and the outer loop reach "
          "ALL OK")

# --- gated_write: the scripted example of seed 000, 9.1
# --------------------------------------------------

SCRIPT = [
    [call("read_file", path="a.py"), call("read_file", path="t.py")],
    [call("write_file", path="a.py", content="fixed")],
    [call("write_file", path="/etc/x", content="!")],
]


@one_task
def scripted_policy(c: Conversation) -> Turn:
    """Three tool turns (two reads, a write, a write to /etc/x), then done, saying what was
    refused."""
    k = c.calls_so_far
    if k < len(SCRIPT):
        return Turn(SCRIPT[k])
    errors = [c.result_text(r) for _, r in c.all_results() if r.get("is_error")]
    return say(tr("done; refused: {error}").format(error=errors[-1]) if errors else tr("done"))


GATED_WRITE = Scenario(
    "gated_write", deferred("The scripted run of 9.1: a write the gate denies"),
    "fix", scripted_policy, files={"a.py": "bug", "t.py": "test"},
    workspace_tools=lambda ws: ws.toolbox(run=False), gate=Gate(deny=["write_file(/etc/*)"]),
    notes="4 calls, 3 turns, len(h) 8; the write to /etc/x gets an is_error result and changes "
          "nothing")

# --- conflicting_edits: example 6.3
# --------------------------------------------------------------------------


def edits_policy(values: tuple[str, ...] = ("2", "3")):
    """A model that asks, in one response, for edits `x = 1` -> `x = v` for each v, then reads and
    reports."""

    @one_task
    def policy(c: Conversation) -> Turn:
        if c.calls_so_far == 0:
            return say(tr("Two edits at once."),
                       *[call("edit_file", path="a.txt", old="x = 1", new=f"x = {v}")
                                                    for v in values])
        reads = [r for u, r in c.all_results() if u["name"] == "read_file"]
        if not reads:  # the edits are done: read what they left
            return Turn([call("read_file", path="a.txt")])
        return say(tr("a.txt now holds {text}; the order of the edits decided it.").format(
            text=c.result_text(reads[-1]).strip()))

    return policy


CONFLICTING_EDITS = Scenario(
    "conflicting_edits", deferred("Two edits in one response (example 6.3)"),
    deferred("Set x in a.txt."), edits_policy(), files={"a.txt": "x = 1\n"},
    workspace_tools=lambda ws: ws.toolbox(run=False),
    notes="edits x = 1 -> x = 2 and x = 1 -> x = 3: the first wins, the second fails; order "
          "decides")
