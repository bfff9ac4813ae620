"""Lesson 05, errors and the gate: every tool_use gets a result, refused or failed ones with is_error (Prop. 3.5).

rule_matches(rule, name, input) -> bool
  a permission rule `Tool` matches every call of Tool; `Tool(spec)` matches when one of the call's
  string arguments matches the glob `spec` (e.g. `write_file(/etc/*)`).
answer_calls(tool_uses, run_tool, deny) -> dict
  the user message answering the tool_use blocks: calls matching a rule of `deny` are refused
  (is_error, never run), the others run through run_tool; an exception becomes an is_error result.
"""
from __future__ import annotations

from ...api import APIError
from ...api.validate import validate_request
from ...client import MODEL
from ...messages import tool_use
from ...scenarios.search import search
from ...tools import Tool, Toolbox
from ..exercise import RUN_TOOL, Check, CheckFailed, Exercise
from .common import content, expect, returned, tools_only
from .l03_the_first_loop import ONLY_ONE_RESULT, diagnose

TOOL_PREFIX = "matching tool names by prefix: `search` is not `search_web`"
SUBSTRING = "matching the spec as a substring: `/etc/*` is a glob over the whole argument"
TOOL_IGNORED = "matching the spec without the tool: `write_file(/etc/*)` says nothing about read_file"
NO_SPEC = "ignoring the spec: `run_python(test_*.py)` does not match every run_python call"
REFUSED_OMITTED = "omitting a refused call: it still needs a tool_result with is_error (Prop. 3.5)"
REFUSED_RUN = "running a call the gate refused"
EXCEPTION = "letting a tool's exception escape: it becomes an is_error result the model can read"
ORDER = "results out of order: one per tool_use, in the order they were asked"

RULES = [  # (rule, name, input, matches, the mistake that gets it wrong)
    ("search", "search", {"query": "Aurora Run"}, True, TOOL_PREFIX),
    ("search", "search_web", {"query": "Aurora Run"}, False, TOOL_PREFIX),
    ("write_file(/etc/*)", "write_file", {"path": "/etc/passwd", "content": "x"}, True, SUBSTRING),
    ("write_file(/etc/*)", "write_file", {"path": "/home/etc/x", "content": "x"}, False, SUBSTRING),
    ("write_file(/etc/*)", "read_file", {"path": "/etc/passwd"}, False, TOOL_IGNORED),
    ("run_python(test_*.py)", "run_python", {"path": "test_cart.py"}, True, NO_SPEC),
    ("run_python(test_*.py)", "run_python", {"path": "cart.py"}, False, NO_SPEC),
    ("send_email(*@example.com)", "send_email", {"to": "bob@example.com", "subject": "Hi", "body": "Monday"}, True, NO_SPEC),
]


def rules(ctx) -> None:
    for rule, name, input, want, mistake in RULES:
        out = ctx.call(rule, name, input)
        returned(out)
        expect(out.value is want, f"rule_matches({rule!r}, {name!r}, {input}) returned {out.value!r}, expected {want}", mistake)


def delete_page(title: str) -> str:
    return f"deleted the page {title}"


def pages_tools() -> Toolbox:
    s = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    d = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    return Toolbox([Tool("search", "Search the encyclopedia. Read-only.", s, search, read_only=True),
                    Tool("delete_page", "Delete a page of the encyclopedia.", d, delete_page)])


PAGES = tools_only("grading_pages", "Searching and deleting pages", pages_tools)
SCENARIOS = [PAGES]


def uses(*calls: tuple[str, dict]) -> list[dict]:
    return [tool_use(f"toolu_{k}", name, input) for k, (name, input) in enumerate(calls, 1)]


def answer(ctx, calls: list[dict], deny: list[str]):
    """Call answer_calls; fail unless it returned a user message the API accepts right after `calls`."""
    out = ctx.call(calls, RUN_TOOL, deny, scenario=PAGES)
    returned(out, EXCEPTION)
    message = out.value if isinstance(out.value, dict) else {}
    body = {"model": MODEL, "max_tokens": 100, "messages": [
        {"role": "user", "content": "Go."}, {"role": "assistant", "content": calls}, message]}
    try:
        validate_request(body)
    except APIError as e:
        hint = diagnose(body)
        raise CheckFailed(f"the API rejects it as the next message: {e.message}",
                          REFUSED_OMITTED if deny and hint == ONLY_ONE_RESULT else hint) from None
    expect(message.get("role") == "user", f"the answer is from {message.get('role')!r}, not 'user'")
    results = content(message)
    expect([b.get("tool_use_id") for b in results] == [u["id"] for u in calls], "the results are not one per call in order",
           ORDER)
    return out, results


def all_allowed(ctx) -> None:
    calls = uses(("search", {"query": "Aurora Run"}), ("search", {"query": "Mara Voss"}))
    out, results = answer(ctx, calls, [])
    expect(out.tool_calls == [(u["name"], u["input"]) for u in calls], f"tools run: {out.tool_calls}; expected both searches")
    expect([r.get("content") for r in results] == [search("Aurora Run"), search("Mara Voss")],
           "the results do not carry the tools' outputs")
    expect(not any(r.get("is_error") for r in results), "a successful call was marked is_error")


def refused(ctx) -> None:
    calls = uses(("search", {"query": "Aurora Run"}), ("delete_page", {"title": "Aurora Run"}), ("search", {"query": "Mara Voss"}))
    out, results = answer(ctx, calls, ["delete_page"])
    expect(all(name != "delete_page" for name, _ in out.tool_calls), "the refused delete_page was run", REFUSED_RUN)
    expect(results[1].get("is_error") is True and results[1].get("content"),
           "the refused call's result is not an is_error result saying why", REFUSED_OMITTED)
    expect(not results[0].get("is_error") and not results[2].get("is_error"), "an allowed call was refused")


def refused_by_spec(ctx) -> None:
    calls = uses(("delete_page", {"title": "Aurora Run"}), ("delete_page", {"title": "Northern Lights"}))
    out, results = answer(ctx, calls, ["delete_page(Aurora*)"])
    expect(out.tool_calls == [("delete_page", {"title": "Northern Lights"})],
           f"with deny delete_page(Aurora*), the tools run were {out.tool_calls}; expected only Northern Lights", REFUSED_RUN)
    expect(results[0].get("is_error") is True and not results[1].get("is_error"), "the wrong call was refused")


def failures(ctx) -> None:
    calls = uses(("fly", {"to": "Oslo"}), ("search", {}), ("search", {"query": "Henrik Dahl"}))
    out, results = answer(ctx, calls, [])
    expect([bool(r.get("is_error")) for r in results] == [True, True, False] and all(r.get("content") for r in results),
           "an unknown tool and an invalid input should each give an is_error result with the error, the valid call its page",
           EXCEPTION)


EXERCISES = [
    Exercise("rule_matches", "rule_matches", "Permission rules Tool and Tool(spec)", [
        Check("tool names, globs over string arguments, and specs that do not match", rules),
    ], notebook="solutions/05_errors_and_the_gate.ipynb"),
    Exercise("answer_calls", "answer_calls", "Answering every tool_use through the gate", [
        Check("allowed calls run, results in order, accepted by the API", all_allowed),
        Check("a refused call is not run and still gets an is_error result", refused),
        Check("a rule with a spec refuses only the calls it matches", refused_by_spec),
        Check("an unknown tool and an invalid input become is_error results", failures),
    ], notebook="solutions/05_errors_and_the_gate.ipynb"),
]
