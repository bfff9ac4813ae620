"""Lesson 12, three loops: a goal loop (an evaluator says "not yet" until it is done) and an outer loop
whose side effects survive a crash (idempotency keys).

goal_loop(client, model, tools, run_tool, prompt, *, max_rounds=10, stall_rounds=2) -> (status, rounds)
  rounds of the inner loop in ONE conversation; after each round the evaluator run_tool("check_goal", {})
  prints "ALL OK" (status "achieved") or what is left, sent back as the next user message; stops as
  "stalled" after stall_rounds rounds in a row without a tool call, as "max_rounds" after max_rounds.
send_notices(run_tool, recipients, subject, body, *, attempts=3) -> int | None
  send one e-mail per recipient with run_tool("send_email", {...}); when a send fails, start the whole
  batch again (at most `attempts` times), never sending anyone the same notice twice; the attempt that
  finished (1-based), or None.
"""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...outbox import Outbox
from ...scenarios import Scenario, get, say
from ...scenarios.coding import one_fix_policy
from ...tools import Tool, Toolbox, Workspace
from ..exercise import CLIENT, RUN_TOOL, Check, Exercise
from .common import accepted, content, expect, returned, text_of, tools_only

STOPS_EARLY = "ending when the inner loop ends: the goal loop asks the evaluator and goes on while it says not yet"
NEW_CONVERSATION = "starting a new conversation each round: the goal loop keeps one conversation and appends the feedback"
NO_FEEDBACK = "not sending the evaluator's answer back: the next round needs to know what is left"
NO_STALL = "no stall detection: rounds without any tool call are not progress"
NO_KEY = "sending without an idempotency key: a retried batch sends the same e-mail again"
UNSTABLE_KEY = "a key that changes between attempts (attempt number, time): the same e-mail needs the same key"
GIVES_UP = "giving up after a failed send: the outer loop starts the batch again"

BROKEN = get("broken_functions")


def goal_tools() -> Toolbox:
    """The broken_functions workspace tools, plus check_goal: the evaluator the harness runs."""
    ws = Workspace(BROKEN.files)
    tools = BROKEN.workspace_tools(ws)

    def check_goal() -> str:
        return ws.run_python("check.py")[1]

    tools.add(Tool("check_goal", "The goal evaluator (run by the harness, not offered to the model).",
                   {"type": "object", "properties": {}}, check_goal, read_only=True))
    return tools


def talker_policy(c: Conversation) -> Turn:
    return say("I believe the functions are fine now.")


GOAL = Scenario("grading_goal", "Four broken functions, one fix per round", BROKEN.prompt, one_fix_policy, goal_tools)
IDLE = Scenario("grading_idle", "A model that only talks", BROKEN.prompt, talker_policy, goal_tools)


def goal_args(scenario: Scenario) -> list:
    offered = [d for d in scenario.make_tools().definitions() if d["name"] != "check_goal"]
    return [CLIENT, MODEL, offered, RUN_TOOL, scenario.prompt]


def run(ctx, scenario, **options):
    out = ctx.call(*goal_args(scenario), scenario=scenario, **options)
    accepted(out)
    returned(out)
    value = out.value if isinstance(out.value, list) and len(out.value) == 2 else [None, None]
    return out, value


def achieved(ctx) -> None:
    out, (status, rounds) = run(ctx, GOAL)
    evaluations = [i for i in out.tool_calls if i[0] == "check_goal"]
    expect(len(evaluations) >= 2, f"the evaluator ran {len(evaluations)} time(s); one fix per round needs 4 rounds",
           STOPS_EARLY)
    first_prompt = [r for r in out.requests if len(r["messages"]) == 1]
    expect(len(first_prompt) == 1, f"{len(first_prompt)} requests started a new conversation; expected only the first",
           NEW_CONVERSATION)
    feedback = [m for m in out.requests[-1]["messages"][1:] if m["role"] == "user"
                and not any(b.get("type") == "tool_result" for b in content(m))]
    expect(len(feedback) == 3 and all("NG" in text_of(m) for m in feedback),
           f"the conversation holds {len(feedback)} feedback messages; expected 3, each with the evaluator's NG line",
           NO_FEEDBACK)
    expect((status, rounds) == ("achieved", 4), f"returned ({status!r}, {rounds!r}); expected ('achieved', 4)")


def capped(ctx) -> None:
    out, (status, rounds) = run(ctx, GOAL, max_rounds=2)
    expect((status, rounds) == ("max_rounds", 2), f"max_rounds=2: returned ({status!r}, {rounds!r}); expected ('max_rounds', 2)")


def stalled(ctx) -> None:
    out, (status, rounds) = run(ctx, IDLE, stall_rounds=2)
    expect(len(out.requests) == 2 and (status, rounds) == ("stalled", 2),
           f"a model that never uses a tool: {len(out.requests)} calls, returned ({status!r}, {rounds!r}); "
           "expected 2 calls and ('stalled', 2)", NO_STALL)


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
SCENARIOS = [GOAL, IDLE, OUTBOX]


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
    expect(all(n <= 1 for n in got.values()), f"e-mails received: {got}", UNSTABLE_KEY if unstable and None not in
           set().union(*keys.values()) else NO_KEY)
    expect(all(n == 1 for n in got.values()), f"e-mails received: {got}; everyone should get the notice", GIVES_UP)
    expect(out.value == 2, f"returned {out.value!r}; the batch failed once and finished on attempt 2", GIVES_UP)


EXERCISES = [
    Exercise("goal_loop", "goal_loop", "A goal loop with an evaluator", [
        Check("broken_functions: four rounds in one conversation, the evaluator's feedback sent back", achieved),
        Check("rounds are capped", capped),
        Check("rounds without tool use stall the loop", stalled),
    ], notebook="solutions/12_three_loops.ipynb"),
    Exercise("send_notices", "send_notices", "An outer loop that survives a dropped connection", [
        Check("every recipient gets exactly one notice after a retried batch", no_duplicates),
    ], notebook="solutions/12_three_loops.ipynb"),
]
