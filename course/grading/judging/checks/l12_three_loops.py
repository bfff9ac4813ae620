"""Lesson 12, three loops: a goal loop (an evaluator that reads the conversation says "not yet",
"achieved" or "impossible") and an outer loop whose side effects survive a crash (idempotency keys).

goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10) ->
(status, rounds)
  rounds of the inner loop in ONE conversation, each round capped at max_turns tool-use turns (per
  round, not in total; hitting the cap ends everything as "error_max_turns"); after each round the
  evaluator run_tool("evaluate_goal", {"messages": conversation}) answers "achieved: ...",
  "impossible: ..." or "not yet: ..."; on "not yet" its reason goes back as the next user message;
  "stalled" after stall_rounds rounds in a row without a tool call, "max_rounds" after max_rounds.
send_notices(run_tool, recipients, subject, body, *, attempts=3) -> int | None
  send one e-mail per recipient with run_tool("send_email", {...}); when a send fails, start the
  whole batch again (at most `attempts` times), never sending anyone the same notice twice; the
  attempt that finished (1-based), or None.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/12_...) on
generated cases: toy models as scripts, an evaluator that says its verdicts in order, a mail server
that fails on given sends.
"""
from __future__ import annotations

from dataclasses import dataclass

from ....client import MODEL
from ....contract.exercise import CLIENT, RUN_TOOL, Outcome
from ....i18n import deferred, tr
from ....scenarios import Scenario
from ....tools import Tool, Toolbox
from ....tools.outbox import Outbox
from ..cases import ANSWERS, Step, describe, loop_tools, max_tokens_free, scenario, settings
from ..oracle import Case, Rule, exercise
from .common import tools_only

NOTEBOOK = "solutions/12_three_loops.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l12_*), named only when a student's function
# does exactly that
STOPS_EARLY = deferred("ending when the inner loop ends: the goal loop asks the evaluator and goes "
                       "on while it says not yet")
NEW_CONVERSATION = deferred("starting a new conversation each round: "
                            "the goal loop keeps one conversation and appends the feedback")
WITHOUT_REPLY = deferred("giving the evaluator the conversation without the model's final reply: "
                         "it reads the whole conversation")
NO_STALL = deferred("no stall detection: rounds without any tool call are not progress")
STALL_NEVER_RESET = deferred("counting idle rounds without resetting: stall_rounds counts rounds "
                             "without a tool call in a row, so a round with one starts the count "
                             "again")
STALL_BEFORE_VERDICT = deferred("checking the stall before asking the evaluator: only a not yet "
                                "can stall the loop")
IMPOSSIBLE_IGNORED = deferred("going on after the evaluator said impossible: that verdict ends the "
                              "goal loop")
CAP_IN_TOTAL = deferred("counting max_turns over all rounds: the cap is per round, each round "
                        "starts its own count")
NO_KEY = deferred("sending without an idempotency key: a retried batch sends the same e-mail again")
UNSTABLE_KEY = deferred("a key that changes between attempts (attempt number, time): the same "
                        "e-mail needs the same key")
GIVES_UP = deferred("giving up after a failed send: the outer loop starts the batch again")
RESUMES = deferred("resuming at the send that failed: the outer loop starts the whole batch again, "
                   "and the keys make the sends that went out no-ops")

# --- goal_loop
# ---------------------------------------------------------------------------------------------

EVALUATOR = "evaluate_goal"
LINES = {"n": "not yet: 2 of 4 checks pass", "a": "achieved: all 4 checks pass",
         "i": "impossible: the checker "
         "cannot run"}
# a tool-use turn, a parallel one, a reply
ASK, TWO, SAYS = Step(("search",)), Step(("search", "search")), ANSWERS


def judge_tools(verdicts: str):
    """The course's tools plus an evaluator that says `verdicts` in order (n, a, i), the last one
    ever after."""
    def make() -> Toolbox:
        said = []

        def evaluate_goal(messages: list) -> str:
            said.append(1)
            return LINES[verdicts[min(len(said), len(verdicts)) - 1]]

        schema = {"type": "object", "properties": {"messages": {"type": "array"}},
                  "required": ["messages"]}
        tools = loop_tools()
        tools.add(Tool(EVALUATOR, "The goal evaluator (run by the harness, never offered to the "
                                  "model).", schema,
                       evaluate_goal, read_only=True))
        return tools

    return make


def goal_case(script: tuple, verdicts: str, **options) -> Case:
    """A goal loop's case: the model's script, the evaluator's verdicts, the options."""
    sc = scenario(script, tools=judge_tools(verdicts))
    offered = [d for d in sc.make_tools().definitions() if d["name"] != EVALUATOR]
    said = ", ".join(LINES[v].split(":")[0] for v in verdicts)
    def label() -> str:  # described in the language spoken when the report is written
        return tr("{model}; an evaluator that says {said}").format(
            model=describe(script), said=said
        ) + settings(options)

    return Case(label, (CLIENT, MODEL, offered, RUN_TOOL, sc.prompt), options, sc)


def round_cases() -> list[Case]:
    """Rounds of 0 to 3 tool-use turns (parallel calls, a tool that raises, thinking, text before a
    call), each capped on its own."""
    broken, thinks, says_first = Step(("broken",)), Step(text="1974", thinking=True), Step(
        ("search",), text="Looking.")
    return [goal_case((SAYS,), "a"), goal_case((ASK, SAYS), "a"),
            goal_case((ASK, TWO, SAYS, broken, thinks), "na"),
            goal_case((ASK, ASK, SAYS, ASK, ASK, SAYS), "na", max_turns=2),
            goal_case((ASK, ASK, SAYS, ASK, ASK, SAYS), "na", max_turns=1),
            goal_case((ASK, SAYS, ASK, ASK, ASK, SAYS), "na", max_turns=2),
            goal_case((ASK, SAYS), "a", max_turns=0),
            goal_case((SAYS, ASK, SAYS), "na", max_turns=0), goal_case((ASK,) * 11 + (SAYS,), "a"),
            goal_case((says_first, SAYS), "a")]


def verdict_cases() -> list[Case]:
    """Achieved or impossible after round 1, 2 or 3."""
    return [goal_case((ASK, SAYS), "i"), goal_case((ASK, SAYS, ASK, SAYS), "na"),
            goal_case((ASK, SAYS, SAYS, ASK, SAYS), "nni"), goal_case((SAYS, SAYS), "na"),
            goal_case((ASK, SAYS, ASK, SAYS, ASK, SAYS), "nna")]


def stall_cases() -> list[Case]:
    """Rounds without tool calls, in a row or not, reaching stall_rounds with a not yet, or with a
    verdict."""
    idle = (SAYS,) * 6
    return [goal_case(idle, "n"), goal_case(idle, "n", stall_rounds=1),
            goal_case(idle, "n", stall_rounds=3),
            goal_case((SAYS, ASK, SAYS, SAYS, SAYS), "n"), goal_case((SAYS, SAYS), "na"),
            goal_case((SAYS, SAYS), "ni"),
            goal_case((SAYS, ASK, SAYS, SAYS, ASK, SAYS, SAYS, SAYS), "n"),
            goal_case((ASK, SAYS, SAYS, ASK, SAYS, SAYS), "n", stall_rounds=2)]


def rounds_cases() -> list[Case]:
    work = (ASK, SAYS) * 4
    return [goal_case(work, "n", max_rounds=n) for n in (1, 2, 3, 0)] + [
        goal_case(work, "nnna", max_rounds=4),
        goal_case((ASK, SAYS) * 11, "n"),
    ]


GOAL_ASPECTS = ("requests", "tool_calls", "value")


def line_held(x):
    """A `loose` for the goal loop: max_tokens_free, and a text that holds an evaluator's line (the
    student's own words around it: "The evaluator says: not yet: ...") read as the line itself,
    wherever it is sent."""
    def held(x):
        if isinstance(x, dict):
            if x.get("type") == "text" and isinstance(x.get("text"), str):
                line = next((line for line in LINES.values() if line in x["text"]), None)
                return {**x, "text": line} if line else x
            return {k: held(v) for k, v in x.items()}
        return [held(v) for v in x] if isinstance(x, list) else x

    return held(max_tokens_free(x))

# --- send_notices
# ------------------------------------------------------------------------------------------

RECIPIENTS = ["alice@example.com", "bob@example.com", "carol@example.com"]


@dataclass
class Flaky(Scenario):
    """A mail server that fails on the given sends (counted from 1 over the whole run): after
    accepting the e-mail (the connection drops before the answer) or before."""

    fails: tuple[int, ...] = ()
    accepted: bool = True


def server(fails: tuple[int, ...], accepted: bool):
    def make() -> Toolbox:
        outbox, sends = Outbox(), []

        def send_email(to: str, subject: str, body: str, idempotency_key: str | None = None) -> str:
            sends.append(to)
            if len(sends) in fails and not accepted:
                raise ConnectionError("the mail server refused the connection")
            answer = outbox.send(to, subject, body, idempotency_key)
            if len(sends) in fails:
                raise ConnectionError("the connection dropped after the mail server accepted the "
                                      "e-mail")
            return answer

        s = {"type": "string"}
        schema = {"type": "object",
                  "properties": {"to": s, "subject": s, "body": s, "idempotency_key": s},
                  "required": ["to", "subject", "body"]}
        return Toolbox([Tool("send_email", "Send an e-mail; a key already seen sends nothing.",
                             schema, send_email)])

    return make


def notice_case(recipients: list, fails: tuple, accepted: bool = True, **options) -> Case:
    base = tools_only("grading_flaky_outbox", "", server(fails, accepted))
    sc = Flaky(base.name, base.title, base.prompt, base.policy, base.make_tools, fails=fails,
               accepted=accepted)
    how = tr("after accepting it") if accepted else tr("before accepting it")
    label = tr("{n} recipients, a mail server that fails on sends {fails} {how}").format(
        n=len(recipients), fails=list(fails), how=how) + "".join(
            f"; {k}={v!r}" for k, v in options.items())
    return Case(label, (RUN_TOOL, recipients, "Launch notice", "We launch on Monday."), options, sc)


def notice_cases() -> list[Case]:
    """No failure, one or two failures (after or before the server accepts), every position, too few
    attempts, recipients not in alphabetical order."""
    made = [notice_case(RECIPIENTS, ()), notice_case([], ()), notice_case(RECIPIENTS[:1], (1,))]
    made += [notice_case(RECIPIENTS, (k,)) for k in (1, 2, 3)] + [notice_case(
        RECIPIENTS, (2,), accepted=False)]
    made += [notice_case(RECIPIENTS, (2, 4)), notice_case(RECIPIENTS, (2, 4), accepted=False),
             notice_case(RECIPIENTS, (2,), attempts=1), notice_case(RECIPIENTS, (1, 2), attempts=2),
             notice_case(RECIPIENTS, (3, 5, 7)), notice_case(RECIPIENTS, (2,), attempts=0),
             notice_case(RECIPIENTS[::-1], (2,))]  # in the order given, not sorted
    return made


def without_keys(x):
    """A `loose` for the sends: the keys are the student's own choice (a rule of their own checks
    them)."""
    if isinstance(x, list):
        return [[c[0], {k: v for k, v in c[1].items() if k != "idempotency_key"}]
                if isinstance(c, list) and len(c) == 2 and isinstance(c[1], dict) else c for c in x]
    return x


def once_each(out: Outcome, case: Case) -> str:
    """Every recipient got the notice exactly once: the sends replayed on a server that keeps
    keys."""
    sc, replay = case.scenario, Outbox()
    for k, (_, input) in enumerate(out.tool_calls, 1):
        if not (k in sc.fails and not sc.accepted):
            replay.send(input.get("to", ""), input.get("subject", ""), input.get("body", ""),
                        input.get("idempotency_key"))
    got = {to: replay.received(to) for to in case.args[1]}
    finished = out.value is not None
    if any(n > 1 for n in got.values()) or (finished and any(n != 1 for n in got.values())):
        return tr(
            "e-mails received: {got}; each recipient must get the notice exactly once"
        ).format(got=got)
    return ""


EXERCISES = [
    exercise("goal_loop", "goal_loop", deferred("A goal loop around your loop"), NOTEBOOK, [
        Rule(deferred("a round runs the inner loop until the model stops asking for tools; "
                      "max_turns caps each round's tool-use turns, and a round that hits it ends "
                      "everything as error_max_turns"), round_cases,
             GOAL_ASPECTS, loose=line_held),
        Rule(deferred("then the evaluator reads the whole conversation so far, the model's final "
                      "reply included, as plain dicts"),
             lambda: round_cases()[:4] + verdict_cases()[1:3], ("tool_calls",), loose=line_held),
        Rule(deferred("achieved or impossible: that word and the round"), verdict_cases,
             GOAL_ASPECTS, loose=line_held),
        Rule(deferred("not yet: stalled once stall_rounds rounds in a row had no tool call; "
                      "otherwise its line goes into the same conversation as a user message"),
             stall_cases, GOAL_ASPECTS, loose=line_held),
        Rule(deferred("after max_rounds rounds: max_rounds"), rounds_cases, GOAL_ASPECTS,
             loose=line_held),
    ]),
    exercise("send_notices", "send_notices",
             deferred("An outer loop that survives a dropped connection"), NOTEBOOK, [
        Rule(deferred("one send_email per recipient, in order; when a send raises, the whole batch "
                      "starts again, up to attempts times"), notice_cases, ("tool_calls",),
             loose=without_keys),
        Rule(deferred("keys that stay the same for the same e-mail: nobody gets the notice twice, "
                      "everyone once when an attempt finishes"), notice_cases,
             ("tool_calls", "value"), holds=once_each),
        Rule(deferred("the attempt that finished (1-based), or None"), notice_cases),
    ]),
]
