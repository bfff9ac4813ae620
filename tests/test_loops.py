"""The three loops of seed 003: plain 0/3, goal loop 3/3, outer loop 3/3; stalls, caps, and resuming a session."""
from course.api import LocalAPI, Scripted
from course.client import MODEL, make_client
from course.events import MAX_TURNS
from course.gate import Gate
from course.loop import Agent, Limits
from course.loops import (ACHIEVED, IMPOSSIBLE, MAX_LAPS, MAX_ROUNDS, NOT_YET, STALLED, SUCCESS, Verdict, goal_loop,
                          outer_loop, run_saving)
from course.messages import violations
from course.scenarios import call, get, say
from course.scenarios.coding import checker_verdict

S = get("broken_functions")


def test_plain_runs_fix_one_function_each_time():
    outcomes = []
    for _ in range(3):
        ws = S.workspace()
        S.agent(workspace=ws).run(S.prompt)
        outcomes.append(ws.run_python("check.py")[1])
    assert outcomes == ["NG: f2,f3,f4"] * 3  # 0/3


def test_the_goal_loop_reaches_all_ok_in_one_conversation():
    for _ in range(3):  # 3/3
        ws = S.workspace()
        g = goal_loop(S.agent(workspace=ws), S.prompt, S.evaluator)
        assert (g.status, len(g.rounds)) == (ACHIEVED, 4) and S.is_done(ws)
        assert [v.status for v in g.verdicts] == [NOT_YET] * 3 + [ACHIEVED]
        assert "NG: f2,f3,f4" in g.verdicts[0].reason
        feedback = [m for m in g.messages if m["role"] == "user" and "Not yet" in str(m["content"])]
        assert len(feedback) == 3 and violations(g.messages, final_assistant=True) == []
        assert g.calls == sum(r.calls for r in g.rounds) == 20 and g.cost_usd > 0


def test_the_outer_loop_reaches_all_ok_with_fresh_sessions():
    for _ in range(3):  # 3/3
        ws = S.workspace()
        o = outer_loop(lambda: S.agent(workspace=ws), S.prompt, lambda: S.is_done(ws))
        assert (o.status, len(o.laps)) == (SUCCESS, 4) and ws.run_python("check.py") == (0, "ALL OK")
        assert all(len(lap.messages[0]["content"]) == 1 and lap.calls == 5 for lap in o.laps)  # nothing carried over


def test_the_outer_loop_checks_before_each_lap_and_caps_laps():
    ws = S.workspace()
    o = outer_loop(lambda: S.agent(workspace=ws), S.prompt, lambda: S.is_done(ws), max_laps=2)
    assert (o.status, len(o.laps), ws.run_python("check.py")[1]) == (MAX_LAPS, 2, "NG: f3,f4")
    assert outer_loop(lambda: 1 / 0, S.prompt, lambda: True).laps == []  # already done: no session at all


def test_the_goal_evaluator_reads_only_the_conversation():
    assert checker_verdict([{"role": "user", "content": "go"}]).status == NOT_YET
    r = S.run(gate=Gate(deny=["run_python"]))
    assert checker_verdict(r.messages).status == IMPOSSIBLE


def chatty():
    """An agent that uses a tool once, then only talks."""
    return Agent(make_client(LocalAPI(Scripted([say(call("look")), say("done")], then=say("still thinking")),
                                         undeclared_tools=True)),
                 MODEL, get("aurora_run").tools())


def test_the_goal_loop_stops_when_rounds_stall():
    g = goal_loop(chatty(), "go", lambda h: Verdict(NOT_YET, "keep going"), stall_rounds=2)
    assert (g.status, len(g.rounds), [r.turns for r in g.rounds]) == (STALLED, 3, [1, 0, 0])


def test_the_goal_loop_caps_rounds_and_passes_inner_errors_on():
    g = goal_loop(chatty(), "go", lambda h: Verdict(NOT_YET, "more"), max_rounds=2, stall_rounds=5)
    assert (g.status, len(g.rounds)) == (MAX_ROUNDS, 2)
    stuck = Agent(make_client(LocalAPI(Scripted([], then=say(call("look"))), undeclared_tools=True)), MODEL, get("aurora_run").tools(),
                  limits=Limits(max_turns=1))
    assert goal_loop(stuck, "go", lambda h: Verdict(ACHIEVED)).status == MAX_TURNS


def test_run_saving_keeps_the_history_of_the_last_call():
    session = []
    r = run_saving(get("aurora_run").agent(), "In which year was the director of Aurora Run born?", session)
    assert r.text == "1974" and session == r.messages[:-1]
