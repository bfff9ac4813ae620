"""Lesson 12, three loops: a goal loop (an evaluator that reads the conversation says "not yet", "achieved" or
"impossible") and an outer loop whose side effects survive a crash (idempotency keys).

goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2, max_turns=10) -> (status, rounds)
  rounds of the inner loop in ONE conversation, each round capped at max_turns tool-use turns (per round, not in
  total; hitting the cap ends everything as "error_max_turns"); after each round the evaluator
  run_tool("evaluate_goal", {"messages": conversation}) answers "achieved: ...", "impossible: ..." or "not yet: ...";
  on "not yet" its reason goes back as the next user message; "stalled" after stall_rounds rounds in a row without
  a tool call, "max_rounds" after max_rounds.
send_notices(run_tool, recipients, subject, body, *, attempts=3) -> int | None
  send one e-mail per recipient with run_tool("send_email", {...}); when a send fails, start the whole
  batch again (at most `attempts` times), never sending anyone the same notice twice; the attempt that
  finished (1-based), or None.
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...goal_loop import NOT_YET
from ...i18n import deferred, tr
from ...outbox import Outbox
from ...scenarios import Scenario, call, get, say
from ...scenarios.coding import checker_verdict, one_fix_policy
from ...tools import Tool, Toolbox, Workspace
from ..exercise import CLIENT, RUN_TOOL, Check, Exercise
from .common import accepted, content, expect, returned, same_messages, shown, text_of, tools_only

STOPS_EARLY = deferred("ending when the inner loop ends: the goal loop asks the evaluator and goes on while it says "
                       "not yet")
NEW_CONVERSATION = deferred("starting a new conversation each round: "
                            "the goal loop keeps one conversation and appends the feedback")
NO_FEEDBACK = deferred("not sending the evaluator's reason back: the next round needs to know what is left")
NO_STALL = deferred("no stall detection: rounds without any tool call are not progress")
IMPOSSIBLE_IGNORED = deferred("going on after the evaluator said impossible: that verdict ends the goal loop")
CAP_IN_TOTAL = deferred("counting max_turns over all rounds: the cap is per round, each round starts its own count")
NO_KEY = deferred("sending without an idempotency key: a retried batch sends the same e-mail again")
UNSTABLE_KEY = deferred("a key that changes between attempts (attempt number, time): the same e-mail needs the same "
                        "key")
GIVES_UP = deferred("giving up after a failed send: the outer loop starts the batch again")

BROKEN = get("broken_functions")
EVALUATOR = "evaluate_goal"
SPOKEN = {NOT_YET: "not yet"}  # the verdicts as the evaluator says them: "not yet", "achieved", "impossible"
TURNS_PER_ROUND = 4  # one_fix_policy: run check.py, read funcs.py, edit it, run check.py again


def evaluate_goal(messages: list) -> str:
    """Lesson 12's evaluator: it reads only the conversation (the last check.py output in it)."""
    verdict = checker_verdict(messages)
    return f"{SPOKEN.get(verdict.status, verdict.status)}: {verdict.reason}"


def evaluator() -> Tool:
    schema = {"type": "object", "properties": {"messages": {"type": "array"}}, "required": ["messages"]}
    return Tool(EVALUATOR, "The goal evaluator (run by the harness, never offered to the model).", schema,
                evaluate_goal, read_only=True)


def goal_tools() -> Toolbox:
    """The broken_functions workspace tools, plus the evaluator the harness runs."""
    tools = BROKEN.workspace_tools(Workspace(BROKEN.files))
    tools.add(evaluator())
    return tools


def locked_tools() -> Toolbox:
    """A workspace whose checker cannot run: the evaluator says impossible."""
    def run_python(path: str) -> str:
        return f"python: can't open file '{path}': [Errno 13] Permission denied"

    tools = Toolbox([Tool("run_python", "Run a Python file of the workspace.", {"type": "object", "properties": {
        "path": {"type": "string"}}, "required": ["path"]}, run_python)])
    tools.add(evaluator())
    return tools


def talker_policy(c: Conversation) -> Turn:
    return say("I believe the functions are fine now.")


def locked_policy(c: Conversation) -> Turn:
    return say("I cannot run the checker.") if c.calls_so_far else say(call("run_python", path="check.py"))


GOAL = Scenario("grading_goal", "Four broken functions, one fix per round", BROKEN.prompt, one_fix_policy, goal_tools)
IDLE = Scenario("grading_idle", "A model that only talks", BROKEN.prompt, talker_policy, goal_tools)
LOCKED = Scenario("grading_locked", "A checker that cannot run", BROKEN.prompt, locked_policy, locked_tools)


def goal_args(scenario: Scenario) -> list:
    offered = [d for d in scenario.make_tools().definitions() if d["name"] != EVALUATOR]
    return [CLIENT, MODEL, offered, RUN_TOOL, scenario.prompt]


def run(ctx, scenario, **options):
    out = ctx.call(*goal_args(scenario), scenario=scenario, **options)
    accepted(out)
    returned(out)
    value = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    return out, value


def evaluations(out) -> list[dict]:
    return [input for name, input in out.tool_calls if name == EVALUATOR]


def achieved(ctx) -> None:
    out, (status, rounds) = run(ctx, GOAL)
    asked = evaluations(out)
    expect(len(asked) >= 2, tr("the evaluator ran {n} time(s); one fix per round needs 4 rounds").format(n=len(asked)),
           STOPS_EARLY if not asked else "")
    first_prompt = [r for r in out.requests if len(r["messages"]) == 1]
    expect(len(first_prompt) == 1,
           tr("{n} requests started a new conversation; expected only the first").format(n=len(first_prompt)),
           NEW_CONVERSATION)
    ends = [k for k, r in enumerate(out.replies) if r.get("stop_reason") != "tool_use"]  # each round's last call
    for n, (k, input) in enumerate(zip(ends, asked), 1):
        conversation = out.requests[k]["messages"] + [{"role": "assistant", "content": out.replies[k]["content"]}]
        same_messages(input.get("messages") or [], conversation, tr(
            "round {n}: the evaluator was not given the conversation (the last request and the model's final reply)"
        ).format(n=n))
    feedback = [m for m in out.requests[-1]["messages"][1:] if m["role"] == "user"
                and not any(b.get("type") == "tool_result" for b in content(m))]
    expect(len(feedback) == 3 and all("NG" in text_of(m) for m in feedback),
           tr("the conversation holds {n} feedback messages; expected 3, each with the evaluator's reason (it names "
              "what is still NG)").format(n=len(feedback)),
           NO_FEEDBACK if not feedback and len(first_prompt) == 1 else "")
    expect((status, rounds) == ("achieved", 4),
           tr("returned {got}; expected ('achieved', 4)").format(got=shown([status, rounds])))


def per_round_cap(ctx) -> None:
    out, (status, rounds) = run(ctx, GOAL, max_turns=TURNS_PER_ROUND)
    expect((status, rounds) == ("achieved", 4),
           tr("max_turns={cap} with rounds of {turns} tool-use turns each: returned {got}; expected ('achieved', 4)"
              ).format(cap=TURNS_PER_ROUND, turns=TURNS_PER_ROUND, got=shown([status, rounds])),
           CAP_IN_TOTAL if status == "error_max_turns" and rounds and rounds > 1 else "")
    out, (status, rounds) = run(ctx, GOAL, max_turns=TURNS_PER_ROUND - 1)
    expect((status, rounds) == ("error_max_turns", 1),
           tr("max_turns={cap} with rounds of {turns} tool-use turns: returned {got}; expected ('error_max_turns', 1)"
              ).format(cap=TURNS_PER_ROUND - 1, turns=TURNS_PER_ROUND, got=shown([status, rounds])))
    expect(len(out.requests) == TURNS_PER_ROUND, tr("{n} calls; a cap of {cap} turns allows {calls} calls").format(
        n=len(out.requests), cap=TURNS_PER_ROUND - 1, calls=TURNS_PER_ROUND))


def capped(ctx) -> None:
    out, (status, rounds) = run(ctx, GOAL, max_rounds=2)
    expect((status, rounds) == ("max_rounds", 2),
           tr("max_rounds=2: returned {got}; expected ('max_rounds', 2)").format(got=shown([status, rounds])),
           STOPS_EARLY if not evaluations(out) else "")


def stalled(ctx) -> None:
    out, (status, rounds) = run(ctx, IDLE, stall_rounds=2)
    n = len(out.requests)
    expect(n == 2 and (status, rounds) == ("stalled", 2),
           tr("a model that never uses a tool: {n} calls, returned {got}; expected 2 calls and ('stalled', 2)").format(
               n=n, got=shown([status, rounds])),
           STOPS_EARLY if not evaluations(out) else NO_STALL if n > 2 else "")


def impossible(ctx) -> None:
    out, (status, rounds) = run(ctx, LOCKED)
    asked = evaluations(out)
    expect((status, rounds) == ("impossible", 1),
           tr("the evaluator said impossible after round 1: {n} calls, returned {got}; expected ('impossible', 1)"
              ).format(n=len(out.requests), got=shown([status, rounds])),
           STOPS_EARLY if not asked else IMPOSSIBLE_IGNORED if len(out.requests) > 2 else "")


RECIPIENTS = ["alice@example.com", "bob@example.com", "carol@example.com"]


def flaky_outbox() -> Toolbox:
    """send_email whose second send goes out but the connection drops before the answer."""
    outbox, sends = Outbox(), []

    def send_email(to: str, subject: str, body: str, idempotency_key: str | None = None) -> str:
        answer = outbox.send(to, subject, body, idempotency_key)
        sends.append(to)
        if len(sends) == 2:
            raise ConnectionError("the connection dropped after the mail server accepted the e-mail")
        return answer

    s = {"type": "string"}
    schema = {"type": "object", "properties": {"to": s, "subject": s, "body": s, "idempotency_key": s},
              "required": ["to", "subject", "body"]}
    return Toolbox([Tool("send_email", "Send an e-mail; a key already seen sends nothing.", schema, send_email)])


OUTBOX = tools_only("grading_flaky_outbox", "A mail server whose connection drops once", flaky_outbox)
SCENARIOS = [GOAL, IDLE, LOCKED, OUTBOX]


def no_duplicates(ctx) -> None:
    out = ctx.call(RUN_TOOL, RECIPIENTS, "Launch notice", "We launch on Monday.", scenario=OUTBOX)
    returned(out, GIVES_UP)
    replay = Outbox()
    for _, input in out.tool_calls:
        replay.send(input.get("to"), input.get("subject"), input.get("body"), input.get("idempotency_key"))
    keys: dict[str, set] = {}
    for _, input in out.tool_calls:
        keys.setdefault(input.get("to"), set()).add(input.get("idempotency_key"))
    got = {to: replay.received(to) for to in RECIPIENTS}
    unstable = any(len(k) > 1 for k in keys.values())
    keyless = None in set().union(*keys.values())
    expect(all(n <= 1 for n in got.values()), tr("e-mails received: {got}").format(got=got),
           UNSTABLE_KEY if unstable and not keyless else NO_KEY if keyless else "")
    expect(all(n == 1 for n in got.values()),
           tr("e-mails received: {got}; everyone should get the notice").format(got=got), GIVES_UP)
    expect(out.value == 2,
           tr("returned {got!r}; the batch failed once and finished on attempt 2").format(got=out.value),
           GIVES_UP if out.value is None else "")
    out = ctx.call(RUN_TOOL, RECIPIENTS, "Launch notice", "We launch on Monday.", attempts=1, scenario=OUTBOX)
    returned(out)
    expect(out.value is None,
           tr("attempts=1 and the only attempt failed: returned {got!r}; expected None").format(got=out.value))


EXERCISES = [
    Exercise("goal_loop", "goal_loop", deferred("A goal loop around your loop"), [
        Check(deferred("broken_functions: four rounds in one conversation, the evaluator reads it, its reason sent "
                       "back"), achieved),
        Check(deferred("max_turns caps each round, not the rounds together"), per_round_cap),
        Check(deferred("rounds are capped"), capped),
        Check(deferred("rounds without tool use stall the loop"), stalled),
        Check(deferred("the evaluator's impossible ends the loop"), impossible),
    ], notebook="solutions/12_three_loops.ipynb"),
    Exercise("send_notices", "send_notices", deferred("An outer loop that survives a dropped connection"), [
        Check(deferred("every recipient gets exactly one notice after a retried batch; None when no attempt finishes"),
              no_duplicates),
    ], notebook="solutions/12_three_loops.ipynb"),
]
