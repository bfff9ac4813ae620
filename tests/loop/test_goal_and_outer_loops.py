"""The Blog's three loops around the student's loop (lesson 12's `loop` cell): plain 0/3, goal loop
3/3, outer loop 3/3 on the toy; the three verdicts, stalls, caps, sessions, and resuming a saved
session."""
from pathlib import Path

import nbformat

from course.api import LocalAPI, Scripted
from course.client import MODEL, make_client
from course.gate import Gate
from course.goal_loop import (
    ACHIEVED,
    IMPOSSIBLE,
    MAX_ROUNDS,
    NOT_YET,
    STALLED,
    UNFINISHED,
    Verdict,
    goal_loop,
    used_tools,
)
from course.lessons import run_tool_for
from course.messages import violations
from course.outer_loop import MAX_LAPS, SUCCESS, outer_loop, run_saving
from course.scenarios import call, get, say
from course.scenarios.coding import checker_verdict
from course.session import Session

LESSON = Path(__file__).resolve().parents[2] / "notebooks" / "12_three_loops.ipynb"
S = get("broken_functions")


def student_loop():
    """`agent_loop` as lesson 12's `loop` cell defines it."""
    cell = next(c for c in nbformat.read(LESSON, as_version=4).cells
                if "loop" in c.metadata.get("tags", []))
    scope: dict = {}
    exec(cell.source, scope)
    return scope["agent_loop"]


agent_loop = student_loop()


def bound(workspace, **options):
    """The student's loop with the task's tools over `workspace`: loop(client, prompt)."""
    box = S.tools(workspace)
    return lambda client, prompt: agent_loop(client, MODEL, box.definitions(), run_tool_for(box),
                                             prompt, **options)


def test_plain_runs_fix_one_function_each_time():
    outcomes = []
    for _ in range(3):
        ws = S.workspace()
        answer, _ = bound(ws)(make_client(S.policy), S.prompt)
        outcomes.append((answer is not None, ws.run_python("check.py")[1]))
    assert outcomes == [(True, "NG: f2,f3,f4")] * 3  # 0/3 reach ALL OK


def test_the_goal_loop_reaches_all_ok_in_one_conversation():
    for _ in range(3):  # 3/3
        ws = S.workspace()
        g = goal_loop(bound(ws), make_client(S.policy), S.prompt, S.evaluator)
        assert (g.status, len(g.rounds)) == (ACHIEVED, 4) and S.is_done(ws)
        assert [v.status for v in g.verdicts] == [NOT_YET] * 3 + [ACHIEVED]
        assert "NG: f2,f3,f4" in g.verdicts[0].reason
        feedback = [m for m in g.messages if m["role"] == "user" and "Not yet" in str(m["content"])]
        assert len(feedback) == 3 and violations(g.messages, final_assistant=True) == []
        assert g.messages == [m for r in g.rounds for m in r]  # the rounds are one conversation
        assert g.calls == 20 and g.cost_usd > 0


def test_each_round_sends_the_whole_conversation_so_far():
    ws = S.workspace()
    api = LocalAPI(S.policy)
    g = goal_loop(bound(ws), make_client(api), S.prompt, S.evaluator)
    sizes = [len(r.body["messages"]) for r in api.requests]
    # append-only, never restarted
    assert sizes == sorted(sizes) and sizes[-1] == len(g.messages) - 1


def test_the_outer_loop_reaches_all_ok_with_fresh_sessions():
    for _ in range(3):  # 3/3
        ws = S.workspace()
        o = outer_loop(bound(ws), make_client(S.policy), S.prompt, lambda ws=ws: S.is_done(ws))
        assert (o.status, len(o.laps)) == (SUCCESS, 4) and ws.run_python("check.py") == (
            0,
            "ALL OK",
        )
        # nothing carried over
        assert all(lap[0] == {"role": "user", "content": S.prompt} for lap in o.laps)
        assert o.calls == 20 and o.cost_usd > 0


def test_the_outer_loop_checks_before_each_lap_and_caps_laps():
    ws = S.workspace()
    o = outer_loop(bound(ws), make_client(S.policy), S.prompt, lambda: S.is_done(ws), max_laps=2)
    assert (o.status, len(o.laps), ws.run_python("check.py")[1]) == (MAX_LAPS, 2, "NG: f3,f4")
    never = outer_loop(lambda client, prompt: 1 / 0, make_client(S.policy), S.prompt, lambda: True)
    assert (never.status, never.laps) == (SUCCESS, [])  # already done: no session at all


def test_the_goal_evaluator_reads_only_the_conversation():
    assert checker_verdict([{"role": "user", "content": "go"}]).status == NOT_YET
    r = S.run(gate=Gate(deny=["run_python"]))
    assert checker_verdict(r.messages).status == IMPOSSIBLE


def test_an_impossible_verdict_ends_the_goal_loop_at_once():
    g = goal_loop(bound(S.workspace()), make_client(S.policy), S.prompt,
                  lambda h: Verdict(IMPOSSIBLE, "no checker"))
    assert (g.status, len(g.rounds), g.verdicts) == (IMPOSSIBLE, 1,
                                                     [Verdict(IMPOSSIBLE, "no checker")])


def chatty():
    """A client whose model uses a tool once, then only talks."""
    return make_client(LocalAPI(Scripted([say(call("search", query="Aurora Run")), say("done")],
                                         then=say("still thinking"))))


def aurora_loop(**options):
    box = get("aurora_run").tools()
    return lambda client, prompt: agent_loop(client, MODEL, box.definitions(), run_tool_for(box),
                                             prompt, **options)


def test_the_goal_loop_stops_when_rounds_stall():
    g = goal_loop(aurora_loop(), chatty(), "go", lambda h: Verdict(NOT_YET, "keep going"),
                  stall_rounds=2)
    assert (g.status, len(g.rounds), [used_tools(r) for r in g.rounds]) == (
        STALLED,
        3,
        [True, False, False],
    )


def test_the_goal_loop_caps_rounds_and_stops_when_the_inner_loop_does_not_finish():
    g = goal_loop(aurora_loop(), chatty(), "go", lambda h: Verdict(NOT_YET, "more"), max_rounds=2,
                  stall_rounds=5)
    assert (g.status, len(g.rounds)) == (MAX_ROUNDS, 2)
    stuck = make_client(LocalAPI(Scripted([], then=say(call("search", query="Aurora Run")))))
    g = goal_loop(aurora_loop(max_turns=1), stuck, "go", lambda h: Verdict(ACHIEVED))
    assert (g.status, g.verdicts, g.calls) == (UNFINISHED, [], 2)


def test_a_session_continues_what_it_is_given_and_keeps_every_response():
    earlier = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"}]
    api = LocalAPI(Scripted([], then=say("fine")))
    session = Session(make_client(api), earlier)
    session.messages.create(model=MODEL, max_tokens=64,
                            messages=[{"role": "user", "content": "how are you?"}])
    assert [m["content"] for m in api.requests[0].body["messages"]] == [
        "hello",
        "hi",
        "how are you?",
    ]
    assert session.calls == 1 and session.cost_usd > 0 and earlier[-1]["content"] == "hi"


def test_run_saving_keeps_the_history_of_the_last_call():
    session = []
    r = run_saving(get("aurora_run").agent(), "In which year was the director of Aurora Run born?",
                   session)
    assert r.text == "1974" and session == r.messages[:-1]
