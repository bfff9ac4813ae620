"""Lesson 14, the Agent SDK: lesson 05's gate as `can_use_tool`, and a run stopped by turns and by
money, on the genuine Claude Code CLI.

decide(tool_name, tool_input, deny) -> PermissionResultAllow | PermissionResultDeny
  denied, with the message `Permission denied by rule R`, when a rule of `deny` matches (R the
  first); else allowed.
async gated_run(prompt, options, deny) -> ResultMessage
  query() with a can_use_tool answering what decide answers.
async limited_run(prompt, options, max_turns, max_budget_usd) -> ResultMessage
  query() with the two limits (None: none), the ResultMessage kept when query() raises ResultError
  after it.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/14_...) on
generated cases. decide is pure: every tool name with every input under lists of rules that match
none, one or several (bare names, specs, names that are prefixes of others). The two runs are graded
on the wire: the grader passes AGENT_OPTIONS, and the real CLI runs the student's code against the
grader's API; what is compared is what the CLI sent (the tool_use and tool_result blocks of each
request: its system prompt names folders and dates, and the toy model's text speaks the report's
language), the tools the grader ran for it, and the ResultMessage's fields that do not vary from run
to run or with the language.
"""
from __future__ import annotations

from ....contract.exercise import AGENT_OPTIONS, AGENT_OPTIONS_ALLOWING
from ....i18n import deferred, tr
from ....scenarios import get
from .. import reference
from ..cases import pick
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/14_the_agent_sdk.ipynb"
# the scenarios' search tool, as the SDK names an in-process MCP tool
SEARCH = "mcp__course__search"

# the known mistakes' causes (grading/judging/mistakes/l14_*), named only when a student's function
# does exactly that
LAST_RULE = deferred("naming the last rule that matches: the message names the first rule of deny "
                     "that matches")
AS_DICT = deferred("answering with a dict: the SDK takes PermissionResultAllow() or "
                   "PermissionResultDeny(message=...)")
INTERRUPT = deferred("denying with interrupt=True: that ends the whole run; a refused call only "
                     "needs its message")
REFUSED_ALL = deferred("refusing every call: only the calls decide refuses are refused")
ALLOWED_ALL = deferred("allowing every call: can_use_tool must answer what decide answers")
IGNORES_BUDGET = deferred("leaving max_budget_usd out of the options")
ESCAPES = deferred("letting query()'s ResultError escape: the ResultMessage came before it, keep "
                   "it and return it")
EXTRA_TURN = deferred("giving the SDK max_turns + 1: its max_turns already caps the requests at "
                      "max_turns")

# --- decide
# ---------------------------------------------------------------------------------------------

NAMES = (SEARCH, "Bash", "Bash2", "Read")
INPUTS: tuple[dict, ...] = ({"query": "Aurora Run"}, {"command": "rm -rf build"}, {"command": "ls"},
                            {}, {"timeout": 10})
DENY = ((), ("Bash",), ("Bash(rm *)",), (SEARCH,), ("Read", "Bash(ls)"),
        (f"{SEARCH}(Aurora*)", "Bash(rm *)", "Bash"),
        ("Bash(ls)", "Bash", f"{SEARCH}(*Run)", SEARCH), ("Bash(rm *)", "Bash"),
        (SEARCH, f"{SEARCH}(Aurora*)"))
ALLOWED = 40  # cases of the calls the reference allows: the first 5, then a fixed sample


def gate_cases(kind: str):
    """The calls the reference denies ("denied"), those where more than one rule matches
    ("several"), or a sample of those it allows ("allowed")."""
    def made() -> list[Case]:
        decide = reference.function(NOTEBOOK, "decide")
        matches = reference.function(NOTEBOOK, "rule_matches")
        cases = []
        for deny in DENY:
            for name in NAMES:
                for input in INPUTS:
                    matched = [r for r in deny if matches(r, name, dict(input))]
                    denied = decide(name, dict(input), list(deny)).behavior == "deny"
                    if {"denied": denied, "several": len(matched) > 1, "allowed": not denied}[kind]:
                        cases.append(Case(f"decide({name!r}, {input}, {list(deny)})",
                                          (name, dict(input), list(deny))))
        return pick(cases, ALLOWED, keep=5) if kind == "allowed" else cases
    return made


# --- what a run is compared on
# ----------------------------------------------------------------------------

def wire(requests):
    """Each request as the CLI sent it, reduced to its tool blocks (the calls and their results):
    its text blocks carry the CLI's reminders, which name a scratch folder and the date."""
    if not isinstance(requests, list):
        return requests
    kept = []
    for body in requests:
        blocks = []
        for m in body.get("messages", []):
            for b in m.get("content", []) if m.get("role") in ("user", "assistant") else []:
                if b.get("type") == "tool_use":
                    blocks.append({"tool_use": b.get("name"), "input": b.get("input")})
                elif b.get("type") == "tool_result":
                    blocks.append({"tool_result": b.get("content"),
                                   "is_error": b.get("is_error", False)})
        kept.append(blocks)
    return kept


RESULT_FIELDS = ("subtype", "is_error", "num_turns", "stop_reason", "terminal_reason",
                 "permission_denials")
# on a budget stop: 1 and None, or 2 and "tool_use" if the CLI had already run
RACED = ("num_turns", "stop_reason")
# the response's ToolSearch when it checked the cost (10 ms between streamed events is enough to
# flip them)


def result_fields(value):
    """The ResultMessage's fields that say how the run ended (times, ids and the cost vary from run
    to run; the `result` text is the toy model's, in the language the course speaks; after a budget
    stop, RACED)."""
    if isinstance(value, dict) and "subtype" in value:
        raced = RACED if value.get("terminal_reason") == "budget_exhausted" else ()
        return {k: value.get(k) for k in RESULT_FIELDS if k not in raced}
    return value


RUN = {"requests": wire, "value": result_fields}  # the `loose` of every rule about a run
# what one call may take: the CLI starts, then answers 1-4 requests (about 2.5 s on an idle
CLI_SECONDS = 15.0
# machine, up to 6.3 s on a loaded one); a call stopped there ends the exercise's runs
# (oracle.student_outcome)

# --- gated_run
# ------------------------------------------------------------------------------------------

AURORA = get("aurora_run")


def gated_case(*deny: str) -> Case:
    return Case(
        lambda: tr("Aurora Run on the Claude Code CLI, deny={deny}").format(deny=list(deny)),
        (AURORA.english_prompt, AGENT_OPTIONS, list(deny)), {}, AURORA)


def gated_cases(*denies: tuple[str, ...]):
    return lambda: [gated_case(*deny) for deny in denies]


# --- limited_run
# ----------------------------------------------------------------------------------------

def limited_case(max_turns: int | None, max_budget_usd: float | None) -> Case:
    """Aurora Run under the two limits (None: none). Unlimited, it ends by itself after 4 requests
    (ToolSearch, two searches, the answer), so a run whose limits were given wrong ends within
    seconds, never at the call limit."""
    return Case(lambda: tr("Aurora Run on the Claude Code CLI, max_turns={turns}, "
                           "max_budget_usd={budget}").format(
        turns=max_turns, budget=max_budget_usd),
                (AURORA.english_prompt, AGENT_OPTIONS_ALLOWING, max_turns,
                                                  max_budget_usd), {}, AURORA)


def turn_cases() -> list[Case]:
    """Caps below the run's 4 requests, and no cap: the run ends by itself, with success, and
    query() never raises."""
    return [limited_case(1, None), limited_case(2, None), limited_case(None, None)]


# dollars: a budget the first response's cost passes, so the run stops after one request
TINY = 0.000001
# dollars: more than the first response costs ($0.00167: the CLI's prompt written to the cache),
# less
SECOND = 0.0025
# than the first two ($0.00337): the second response crosses it, so a budget given wrong (or not at
# all) shows


EXERCISES = [
    exercise("decide", "decide", deferred("Lesson 05's gate as the SDK's answer"), NOTEBOOK, [
        Rule(deferred("a call a rule of deny matches gets PermissionResultDeny, its message "
                      "\"Permission denied by rule R\""), gate_cases("denied"), ("value",),
             points=0.5),
        Rule(deferred("R is the first rule of deny that matches"), gate_cases("several"),
             ("value",), points=0.5),
        Rule(deferred("every other call gets PermissionResultAllow()"), gate_cases("allowed"),
             ("value",), points=0.5),
        Rule(deferred("tool_input and deny are left as they are"), gate_cases("denied"), ("after",),
             points=0.5),
    ]),
    exercise("gated_run", "gated_run", deferred("A gated run of the real harness"), NOTEBOOK, [
        Rule(deferred("a call decide refuses is not run: the harness answers it with an is_error "
                      "result carrying the message"), gated_cases(("Bash", f"{SEARCH}(Aurora*)")),
             ("requests", "tool_calls"), loose=RUN),
        Rule(deferred("a call decide allows runs, and its result goes back to the model"),
             gated_cases((f"{SEARCH}(*1974*)",)), ("requests", "tool_calls"), loose=RUN),
        Rule(deferred("the ResultMessage that ends the run is returned"), gated_cases((SEARCH,)),
             ("value",), loose=RUN, points=0.5),
    ], call_timeout=CLI_SECONDS),
    exercise("limited_run", "limited_run",
             deferred("Stopping the real harness by turns and by money"), NOTEBOOK, [
        Rule(deferred("max_turns stops the run with subtype error_max_turns"), turn_cases,
             ("requests", "value"), loose=RUN),
        Rule(deferred("max_budget_usd stops the run with subtype error_max_budget_usd once its "
                      "cost reaches it"),
             lambda: [limited_case(3, TINY), limited_case(None, TINY), limited_case(3, SECOND)],
             ("requests", "value"), loose=RUN),
        # the runs the turn caps end (query() raises after their ResultMessage), and the one that
        # ends by itself: the same cases as the first rule's, so each run once
        Rule(deferred("the ResultMessage is returned although query() raises ResultError after it"),
             turn_cases, ("value",), loose=RUN),
    ], call_timeout=CLI_SECONDS),
]
