"""Lesson 05, errors and the gate: every tool_use gets a result, refused or failed ones with
is_error (Prop. 3.5).

rule_matches(rule, name, input) -> bool
  a permission rule `Tool` matches every call of Tool; `Tool(spec)` matches when one of the call's
  string arguments matches the glob `spec` (e.g. `write_file(/etc/*)`).
answer_calls(tool_uses, run_tool, deny) -> dict
  the user message answering the tool_use blocks: calls matching a rule of `deny` are refused
  (is_error, never run), the others run through run_tool; an exception becomes an is_error result.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/05_...) on
generated cases: rule/call pairs over the Tool(spec) grammar (bare names, names that are prefixes of
others, globs with the wildcard first, last or inside, exact specs, character classes, arguments
that are not strings, no arguments), and responses of 1 to 4 calls that are allowed, refused by a
bare rule or a spec, or that fail.
"""
from __future__ import annotations

from ....contract.exercise import RUN_TOOL
from ....i18n import deferred, tr
from ....messages import tool_use
from ....scenarios.search import search
from ....tools import Tool, Toolbox
from .. import reference
from ..oracle import Case, Rule, error_text_free, exercise
from .common import tools_only

NOTEBOOK = "solutions/05_errors_and_the_gate.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l05_*), named only when a student's function
# does exactly that
TOOL_PREFIX = deferred("matching tool names by prefix: `search` is not `search_web`")
BARE_NEEDS_ARGUMENT = deferred("reading a bare rule `Tool` as `Tool(*)`: it matches every call of "
                               "Tool, even one without string arguments")
SUBSTRING = deferred("matching the spec as a substring: `/etc/*` is a glob over the whole argument")
LITERAL = deferred("comparing the spec as plain text: it is a glob, `*` stands for any characters")
PREFIX_SPEC = deferred("reading the spec as a prefix of the argument: it is a glob over the whole "
                       "argument, and `*` may stand anywhere")
FIRST_ONLY = deferred("comparing only the call's first argument: the rule matches when any string "
                      "argument matches")
TOOL_IGNORED = deferred("matching the spec without the tool: `write_file(/etc/*)` says nothing "
                        "about read_file")
CASE = deferred("matching case-insensitively: fnmatch.fnmatchcase compares letters exactly")
NOT_STRING = deferred("matching arguments that are not strings: only the call's string arguments "
                      "are compared")
NO_SPEC = deferred("ignoring the spec: `run_python(test_*.py)` does not match every run_python "
                   "call")
REFUSED_OMITTED = deferred("omitting a refused call: it still needs a tool_result with is_error "
                           "(Prop. 3.5)")
REFUSED_RUN = deferred("running a call that a deny rule matches: a refused call is never run")
REFUSED_NO_ERROR = deferred("answering a refused call without is_error: true: the model must see "
                            "it was refused")
NO_REASON = deferred("a refused call's result without content: say why it was refused")
NAME_ONLY = deferred("matching a deny rule by the tool name only: `delete_page(Aurora*)` refuses "
                     "only the matching calls")
NO_ERROR_TEXT = deferred("answering an exception without its message: the is_error result carries "
                         "the error, e.g. str(error)")
EXCEPTION = deferred("letting a tool's exception escape: it becomes an is_error result the model "
                     "can read")
REFUSED_LAST = deferred("answering the refused calls after the others: one result per call, in the "
                        "order asked")
IN_PLACE = deferred("turning the tool_use blocks into results in place: build new dicts and leave "
                    "tool_uses as it is")

# --- rule_matches
# ---------------------------------------------------------------------------------------

BARE = ("search", "search_web", "run_python")
# exact, longer, case, shorter, other
NAMES = {"search": ("search", "search_web", "Search", "searc", "read_file"),
         "search_web": ("search_web", "search", "search_web2"),
         "run_python": ("run_python", "run_python3", "run")}
INPUTS: tuple[dict, ...] = ({"query": "Aurora Run"}, {}, {"timeout": 10},
                            {"path": "cart.py", "timeout": 10})

SPECS = {  # a rule Tool(spec): (an argument it matches, the other tools' names to try)
    "write_file(/etc/*)": ({"path": "/etc/passwd", "content": "x"},
                           ("read_file", "write", "write_file_backup")),
    "run_python(test_*.py)": ({"path": "test_cart.py"}, ("run_python3", "run_test")),
    "send_email(*@example.com)": ({"to": "bob@example.com", "subject": "Hi"},
                                  ("send_emails", "Send_email")),
}
# (rule, tool input) on the rule's own tool: whole argument, case, any argument,
GLOBS: list[tuple[str, dict]] = [
    # non-strings
    ("write_file(/etc/*)", {"path": "/etc/passwd", "content": "x"}),
    ("write_file(/etc/passwd)", {"content": "x", "path": "/etc/passwd"}),
    ("write_file(/etc/*)", {"path": "/home/etc/passwd", "content": "x"}),
    ("write_file(/etc/*)", {"path": "/ETC/passwd"}),
    ("write_file(/etc/*)", {"content": "x", "path": "/etc/hosts"}),
    ("write_file(/etc/*)", {"path": "/etc"}),
    ("write_file(/etc/*)", {}),
    ("write_file(/etc/passwd)", {"path": "/etc/passwd"}),
    ("write_file(/etc/passwd)", {"path": "/etc/passwd.bak"}),
    ("write_file(*)", {"path": ""}),
    ("write_file(*)", {"mode": 420}),
    ("run_python(*.py)", {"path": "cart.py"}),
    ("run_python(*.py)", {"path": "cart.pyc"}),
    ("run_python(*.py)", {"path": "tests/test_cart.py"}),
    ("run_python(test_*.py)", {"path": "test_cart.py"}),
    ("run_python(test_*.py)", {"path": "cart.py"}),
    ("run_python(test_*.py)", {"path": "tests/test_cart.py"}),
    ("run_python(1*)", {"path": "cart.py", "timeout": 10}),
    ("run_python(1*)", {"path": "10.py"}),
    ("send_email(*@example.com)", {"to": "bob@example.com", "subject": "Hi"}),
    ("send_email(*@example.com)", {"to": "bob@example.com.evil.org"}),
    ("send_email(*@example.com)",
     {"subject": "Hi", "to": "ann@Example.com", "cc": "bob@example.com"}),
    ("search(Mara?Voss)", {"query": "Mara Voss"}),
    ("search(Mara?Voss)", {"query": "MaraVoss"}),
    ("read_file([ab]*)", {"path": "a.txt"}),
    ("read_file([ab]*)", {"path": "c.txt"}),
]


def match_case(rule: str, name: str, input: dict) -> Case:
    return Case(f"rule_matches({rule!r}, {name!r}, {input})", (rule, name, input))


def bare_cases() -> list[Case]:
    """Each bare rule against its own name, longer and shorter names, another case and another
    tool."""
    return [match_case(rule, name, INPUTS[(i + j) % len(INPUTS)])
            for i, rule in enumerate(BARE) for j, name in enumerate(NAMES[rule])] + \
        [match_case("search", "search", {}),
         match_case("run_python", "run_python", {"timeout": 10})]


def tool_cases() -> list[Case]:
    """Spec rules against calls whose argument matches the spec: of their own tool, and of other
    tools."""
    return [match_case(rule, name, input) for rule, (input, others) in SPECS.items()
            for name in (rule.split("(")[0], *others)]


def glob_cases() -> list[Case]:
    return [match_case(rule, rule.split("(")[0], input) for rule, input in GLOBS]


# --- answer_calls
# ---------------------------------------------------------------------------------------

def delete_page(title: str) -> str:
    if title == "Main Page":
        raise PermissionError("the main page cannot be deleted")
    return f"deleted the page {title}"


def pages_tools() -> Toolbox:
    s = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    d = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
    return Toolbox([Tool("search", "Search the encyclopedia. Read-only.", s, search,
                         read_only=True),
                    Tool("delete_page", "Delete a page of the encyclopedia.", d, delete_page)])


PAGES = tools_only("grading_pages", "Searching and deleting pages", pages_tools)

CALLS = {  # the calls a response may hold
    "aurora": ("search", {"query": "Aurora Run"}), "voss": ("search", {"query": "Mara Voss"}),
    "delete aurora": ("delete_page", {"title": "Aurora Run"}),
    "delete lights": ("delete_page", {"title": "Northern Lights"}),
    "delete main": ("delete_page", {"title": "Main Page"}),  # raises
    "fly": ("fly", {"to": "Oslo"}),  # an unknown tool
    "no query": ("search", {}),  # an invalid input
}


def calls_case(names: tuple[str, ...], deny: list[str]) -> Case:
    uses = [tool_use(f"toolu_{k}", *CALLS[n]) for k, n in enumerate(names, 1)]
    words = ", ".join(f"{u['name']}({u['input']})" for u in uses)
    return Case(f"answer_calls([{words}], deny={deny})", (uses, RUN_TOOL, deny), {}, PAGES)


# (calls, deny): a bare rule, a spec matching one call of two, two rules, a call that would raise
REFUSALS = [
    (("delete aurora",), ["delete_page"]),
    (("aurora", "delete aurora", "voss"), ["delete_page"]),
    (("delete aurora", "delete lights"), ["delete_page(Aurora*)"]),
    (("delete lights", "delete aurora"), ["delete_page(Aurora*)"]),
    (("voss", "fly", "aurora"), ["search(Mara*)", "fly"]),
    (("delete main", "aurora"), ["delete_page(Main*)"]),
]
ALLOWED = [
    (("aurora",), []),
    (("aurora", "voss"), []),
    (("delete lights", "aurora"), ["delete_page(Aurora*)"]),
    (("aurora", "delete aurora", "voss"), ["search(Mara*)"]),
    (("delete lights",), ["search", "fly"]),
]
FAILURES = [
    (("fly",), []),
    (("no query",), []),
    (("delete main",), []),
    (("fly", "no query", "delete main", "aurora"), []),
    (("delete main", "delete aurora"), ["delete_page(Aurora*)"]),
]
MIXED = [  # refused, failed and allowed calls in every order
    (("aurora", "delete aurora", "fly"), ["delete_page"]),
    (("delete aurora", "aurora", "delete main"), ["delete_page(Aurora*)"]),
    (("fly", "voss", "delete lights"), ["fly"]),
    (("no query", "delete aurora", "voss", "delete lights"),
     ["delete_page(Aurora*)", "search(Mara*)"]),
]


def listed(table):
    return lambda: [calls_case(names, deny) for names, deny in table]


def reason_free(x):
    """A `loose`: an is_error result's wording is the student's own, but it says something (it is
    not empty)."""
    if isinstance(x, dict):
        if x.get("type") == "tool_result" and x.get("is_error") and x.get("content"):
            return {**x, "content": "…"}
        return {k: reason_free(v) for k, v in x.items()}
    if isinstance(x, list):
        return [reason_free(v) for v in x]
    return x


def carries_the_error(out, case: Case) -> str:
    """Each call that is not refused and fails is answered with a result whose text holds the error
    run_tool raised (the reference's reading of the deny rules decides which calls are refused)."""
    uses, _, deny = case.args
    matches = reference.function(NOTEBOOK, "rule_matches")
    blocks = (out.value or {}).get("content") if isinstance(out.value, dict) else None
    results = {b.get("tool_use_id"): b for b in blocks or [] if isinstance(b, dict)}
    tools = pages_tools()
    for use in uses:
        error, failed = tools.run(use["name"], use["input"])
        if not failed or any(matches(r, use["name"], use["input"]) for r in deny):
            continue
        said = (results.get(use["id"]) or {}).get("content")
        text = said if isinstance(said, str) else "".join(
            b.get("text", "") for b in said or [] if isinstance(b, dict))
        if error not in text:
            return tr("the {tool} call's result says {says!r}; expected it to carry the error "
                      "{error!r}").format(
                tool=use["name"], says=text[:80], error=error[:80])
    return ""


CALL_ASPECTS = ("value", "tool_calls")

EXERCISES = [
    exercise("rule_matches", "rule_matches", deferred("Permission rules Tool and Tool(spec)"),
             NOTEBOOK, [
        Rule(deferred("a rule Tool matches every call of the tool named exactly Tool, whatever its "
                      "arguments"),
             bare_cases, points=0.5),
        Rule(deferred("a rule Tool(spec) matches calls of the tool Tool only"), tool_cases),
        Rule(deferred("it matches when one of the call's string arguments matches the glob spec as "
                      "a whole, case-sensitively; other arguments are never compared"), glob_cases),
        Rule(deferred("input is left as it is"), lambda: bare_cases() + tool_cases() + glob_cases(),
             ("after",), points=0.5),
    ]),
    exercise("answer_calls", "answer_calls", deferred("Answering every tool_use through the gate"),
             NOTEBOOK, [
        Rule(deferred("a call matching a rule of deny is not run"), listed(REFUSALS),
             ("tool_calls",)),
        Rule(deferred("a refused call gets an is_error result saying why"), listed(REFUSALS),
             CALL_ASPECTS, loose=reason_free),
        Rule(deferred("the other calls run with run_tool, each result carrying the tool's text"),
             listed(ALLOWED), CALL_ASPECTS, loose=error_text_free),
        Rule(deferred("an exception (an unknown tool, an invalid input, a failure) becomes an "
                      "is_error result"),
             listed(FAILURES), CALL_ASPECTS, loose=error_text_free),
        Rule(deferred("the is_error result of an exception carries the error"),
             listed(FAILURES + MIXED), ("value",), holds=carries_the_error, points=0.5),
        Rule(deferred("one result per call, in order"), listed(MIXED), CALL_ASPECTS,
             loose=reason_free, points=0.5),
        Rule(deferred("tool_uses and deny are left as they are"),
             listed(REFUSALS + ALLOWED + FAILURES + MIXED), ("after",), points=0.5),
    ]),
]
