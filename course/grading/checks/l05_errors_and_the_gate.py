"""Lesson 05, errors and the gate: every tool_use gets a result, refused or failed ones with is_error (Prop. 3.5).

rule_matches(rule, name, input) -> bool
  a permission rule `Tool` matches every call of Tool; `Tool(spec)` matches when one of the call's
  string arguments matches the glob `spec` (e.g. `write_file(/etc/*)`).
answer_calls(tool_uses, run_tool, deny) -> dict
  the user message answering the tool_use blocks: calls matching a rule of `deny` are refused
  (is_error, never run), the others run through run_tool; an exception becomes an is_error result.
"""
from __future__ import annotations

import fnmatch

from ...api import APIError
from ...api.validate import validate_request
from ...client import MODEL
from ...i18n import deferred, tr
from ...messages import tool_use
from ...scenarios.search import search
from ...tools import Tool, Toolbox
from ..exercise import RUN_TOOL, Check, CheckFailed, Exercise
from .common import content, expect, returned, tools_only
from .l03_the_first_loop import ONLY_ONE_RESULT, diagnose

TOOL_PREFIX = deferred("matching tool names by prefix: `search` is not `search_web`")
SUBSTRING = deferred("matching the spec as a substring: `/etc/*` is a glob over the whole argument")
TOOL_IGNORED = deferred("matching the spec without the tool: `write_file(/etc/*)` says nothing about read_file")
CASE = deferred("matching case-insensitively: fnmatch.fnmatchcase compares letters exactly")
NOT_STRING = deferred("matching arguments that are not strings: only the call's string arguments are compared")
NO_SPEC = deferred("ignoring the spec: `run_python(test_*.py)` does not match every run_python call")
REFUSED_OMITTED = deferred("omitting a refused call: it still needs a tool_result with is_error (Prop. 3.5)")
REFUSED_RUN = deferred("running a call that a deny rule matches: a refused call is never run")
REFUSED_NO_ERROR = deferred("answering a refused call without is_error: true: the model must see it was refused")
NO_REASON = deferred("a refused call's result without content: say why it was refused")
NAME_ONLY = deferred("matching a deny rule by the tool name only: `delete_page(Aurora*)` refuses only the matching "
                     "calls")
ALLOWED_REFUSED = deferred("refusing a call that no deny rule matches")
NO_ERROR_TEXT = deferred("answering an exception without its message: the is_error result carries the error, e.g. "
                         "str(error)")
FAILED_NO_ERROR = deferred("answering a failed call without is_error: true")
EXCEPTION = deferred("letting a tool's exception escape: it becomes an is_error result the model can read")
ORDER = deferred("results out of order: one per tool_use, in the order they were asked")

RULES = [  # (rule, name, input, matches, the mistake that gets it wrong)
    ("search", "search", {"query": "Aurora Run"}, True, TOOL_PREFIX),
    ("search", "search_web", {"query": "Aurora Run"}, False, TOOL_PREFIX),
    ("write_file(/etc/*)", "write_file", {"path": "/etc/passwd", "content": "x"}, True, SUBSTRING),
    ("write_file(/etc/*)", "write_file", {"path": "/home/etc/x", "content": "x"}, False, SUBSTRING),
    ("write_file(/etc/*)", "read_file", {"path": "/etc/passwd"}, False, TOOL_IGNORED),
    ("run_python(test_*.py)", "run_python", {"path": "test_cart.py"}, True, NO_SPEC),
    ("run_python(test_*.py)", "run_python", {"path": "cart.py"}, False, NO_SPEC),
    ("send_email(*@example.com)", "send_email",
     {"to": "bob@example.com", "subject": "Hi", "body": "Monday"}, True, NO_SPEC),
    ("write_file(/etc/*)", "write_file", {"path": "/ETC/passwd", "content": "x"}, False, CASE),
    ("run_python(1*)", "run_python", {"path": "cart.py", "timeout": 10}, False, NOT_STRING),
]


def rules(ctx) -> None:
    for rule, name, input, want, mistake in RULES:
        out = ctx.call(rule, name, input)
        returned(out)
        why = tr("rule_matches({rule!r}, {name!r}, {input}) returned {value!r}, expected {want}")
        expect(out.value is want, why.format(rule=rule, name=name, input=input, value=out.value, want=want), mistake)


def delete_page(title: str) -> str:
    if title == "Main Page":
        raise PermissionError("the main page cannot be deleted")
    return f"deleted the page {title}"


def pages_tools() -> Toolbox:
    s = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    d = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    return Toolbox([Tool("search", "Search the encyclopedia. Read-only.", s, search, read_only=True),
                    Tool("delete_page", "Delete a page of the encyclopedia.", d, delete_page)])


PAGES = tools_only("grading_pages", "Searching and deleting pages", pages_tools)
SCENARIOS = [PAGES]


def matches(rule: str, use: dict) -> bool:
    """The reference reading of a deny rule, to tell which calls a check refuses."""
    tool, _, spec = rule.partition("(")
    values = [v for v in use["input"].values() if isinstance(v, str)]
    return tool == use["name"] and (not spec or any(fnmatch.fnmatchcase(v, spec.removesuffix(")")) for v in values))


def uses(*calls: tuple[str, dict]) -> list[dict]:
    return [tool_use(f"toolu_{k}", name, input) for k, (name, input) in enumerate(calls, 1)]


def answer(ctx, calls: list[dict], deny: list[str]):
    """Call answer_calls; fail unless it returned a user message the API accepts right after `calls`."""
    out = ctx.call(calls, RUN_TOOL, deny, scenario=PAGES)
    returned(out, EXCEPTION if out.error and out.error.startswith("RuntimeError: Error") else "")  # run_tool raised
    message = out.value if isinstance(out.value, dict) else {}
    body = {"model": MODEL, "max_tokens": 100, "messages": [
        {"role": "user", "content": "Go."}, {"role": "assistant", "content": calls}, message]}
    try:
        validate_request(body)
    except APIError as e:
        hint = diagnose(body)
        omitted = [u["id"] for u in calls if u["id"] not in {b.get("tool_use_id") for b in content(message)}]
        refused_ids = [u["id"] for u in calls if any(matches(r, u) for r in deny)]
        certain = hint == ONLY_ONE_RESULT and omitted and set(omitted) <= set(refused_ids)
        raise CheckFailed(tr("the API rejects it as the next message: {error}").format(error=e.message),
                          REFUSED_OMITTED if certain else hint) from None
    expect(message.get("role") == "user",
           tr("the answer is from {role!r}, not 'user'").format(role=message.get("role")))
    results = content(message)
    expect([b.get("tool_use_id") for b in results] == [u["id"] for u in calls],
           tr("the results are not one per call in order"), ORDER)
    return out, results


def all_allowed(ctx) -> None:
    calls = uses(("search", {"query": "Aurora Run"}), ("search", {"query": "Mara Voss"}))
    out, results = answer(ctx, calls, [])
    expect(out.tool_calls == [(u["name"], u["input"]) for u in calls],
           tr("tools run: {calls}; expected both searches").format(calls=out.tool_calls))
    expect([r.get("content") for r in results] == [search("Aurora Run"), search("Mara Voss")],
           tr("the results do not carry the tools' outputs"))
    expect(not any(r.get("is_error") for r in results), tr("a successful call was marked is_error"))


def refusal_hint(result: dict) -> str:
    """Why a refused call's result is wrong, read from the result itself."""
    if result.get("is_error") is not True:
        return REFUSED_NO_ERROR
    return "" if result.get("content") else NO_REASON


def refused(ctx) -> None:
    calls = uses(("search", {"query": "Aurora Run"}), ("delete_page", {"title": "Aurora Run"}),
                 ("search", {"query": "Mara Voss"}))
    out, results = answer(ctx, calls, ["delete_page"])
    expect(all(name != "delete_page" for name, _ in out.tool_calls), tr("the refused delete_page was run"), REFUSED_RUN)
    expect(results[1].get("is_error") is True and results[1].get("content"),
           tr("the refused call's result has is_error {flag!r} and content {says!r}; expected is_error True and "
              "why").format(flag=results[1].get("is_error"), says=str(results[1].get("content"))[:60]),
           refusal_hint(results[1]))
    expect(not results[0].get("is_error") and not results[2].get("is_error"),
           tr("is_error flags {flags}, expected [False, True, False]").format(
               flags=[bool(r.get("is_error")) for r in results]),
           ALLOWED_REFUSED if out.tool_calls != [(u["name"], u["input"]) for u in (calls[0], calls[2])] else "")


def refused_by_spec(ctx) -> None:
    calls = uses(("delete_page", {"title": "Aurora Run"}), ("delete_page", {"title": "Northern Lights"}))
    out, results = answer(ctx, calls, ["delete_page(Aurora*)"])
    ran = [input.get("title") for _, input in out.tool_calls]
    flags = [r.get("is_error") for r in results]
    expect("Aurora Run" not in ran, tr("with deny delete_page(Aurora*), the tools run were {calls}; the Aurora Run "
                                       "call is refused").format(calls=out.tool_calls), REFUSED_RUN)
    northern = (tr("with deny delete_page(Aurora*), the Northern Lights call was run and its result has is_error "
                   "{flag!r}; it matches no rule, so it runs and succeeds") if "Northern Lights" in ran else
                tr("with deny delete_page(Aurora*), the Northern Lights call was not run and its result has is_error "
                   "{flag!r}; it matches no rule, so it runs and succeeds"))
    expect(ran == ["Northern Lights"] and not flags[1], northern.format(flag=flags[1]),
           NAME_ONLY if not ran and flags == [True, True] else "")
    expect(flags[0] is True and results[0].get("content"),
           tr("the refused Aurora Run call's result has is_error {flag!r} and content {says!r}; expected is_error "
              "True and why").format(flag=flags[0], says=str(results[0].get("content"))[:60]),
           refusal_hint(results[0]))


def failures(ctx) -> None:
    calls = uses(("fly", {"to": "Oslo"}), ("search", {}), ("delete_page", {"title": "Main Page"}),
                 ("search", {"query": "Henrik Dahl"}))
    out, results = answer(ctx, calls, [])
    flags = [bool(r.get("is_error")) for r in results]
    expect(flags == [True, True, True, False], tr("is_error flags {flags}: an unknown tool, an invalid input and a "
                                                  "tool that raises should each give an is_error result, the valid "
                                                  "call its page").format(flags=flags),
           FAILED_NO_ERROR if flags[3] is False and not all(flags[:3]) else "")
    tools = PAGES.make_tools()
    for use, result in zip(calls[:3], results[:3]):
        error = tools.run(use["name"], use["input"])[0]
        expect(error in str(result.get("content")),
               tr("the {tool} call's result says {says!r}; expected the error, {error!r}").format(
                   tool=use["name"], says=str(result.get("content"))[:60], error=error[:60]), NO_ERROR_TEXT)
    expect(results[3].get("content") == search("Henrik Dahl"), tr("the valid search does not carry its page"))


def unchanged(ctx) -> None:
    calls = uses(("search", {"query": "Aurora Run"}), ("delete_page", {"title": "Aurora Run"}), ("fly", {"to": "Oslo"}))
    deny = ["delete_page(Aurora*)"]
    out = ctx.call([dict(u) for u in calls], RUN_TOOL, list(deny), scenario=PAGES)
    returned(out)
    after = (out.after or {}).get("args") or [None, None, None]
    why = tr("after the call, tool_uses is {got} and deny {rules}; they must be left unchanged")
    expect(after[0] == calls and after[2] == deny, why.format(got=after[0], rules=after[2]))


EXERCISES = [
    Exercise("rule_matches", "rule_matches", deferred("Permission rules Tool and Tool(spec)"), [
        Check(deferred("tool names, globs over string arguments, and specs that do not match"), rules),
    ], notebook="solutions/05_errors_and_the_gate.ipynb"),
    Exercise("answer_calls", "answer_calls", deferred("Answering every tool_use through the gate"), [
        Check(deferred("allowed calls run, results in order, accepted by the API"), all_allowed),
        Check(deferred("a refused call is not run and still gets an is_error result"), refused),
        Check(deferred("a rule with a spec refuses only the calls it matches"), refused_by_spec),
        Check(deferred("an unknown tool, an invalid input and a tool that raises become is_error results with the "
                       "error"), failures),
        Check(deferred("tool_uses and deny are left unchanged"), unchanged),
    ], notebook="solutions/05_errors_and_the_gate.ipynb"),
]
