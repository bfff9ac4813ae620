"""The explorer runs the student's own loop (`Explorer(loop=agent_loop)`) and reads its frames from
the wire."""
import pytest

from bench.explorer import STUDENT_LOOP
from course.contract.child import ToolFailed
from course.contract.exercise import RUN_TOOL
from course.grading.judging.notebook_context import NotebookContext
from course.grading.judging.registry import shipped
from course.messages import blocks
from course.pricing import cost_usd
from course.viz import MessageList
from course.viz.explorer import Explorer
from course.viz.student import CALL_CAP, StudentLoop


def loaded(source: str):
    """The `agent_loop` a source defines, as a student's cell would."""
    space: dict = {}
    exec(source, space)
    return space["agent_loop"]


agent_loop = loaded(STUDENT_LOOP)  # lesson 03's loop, the one the explorer benchmark runs


def budget_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024,
                max_budget_usd=None, gate=None):
    """Lesson 03's loop with a budget checked after each response and a gate asked before each
    tool."""
    messages = [{"role": "user", "content": prompt}]
    turns, spent = 0, 0.0
    while True:
        response = client.messages.create(model=model, max_tokens=max_tokens, tools=tools,
                                          messages=messages)
        spent += cost_usd(model, response.usage)
        reply = {"role": "assistant",
                 "content": [b.model_dump(exclude_none=True) for b in response.content]}
        if response.stop_reason == "end_turn":
            return response.content[-1].text, messages + [reply]
        if turns == max_turns or (max_budget_usd is not None and spent >= max_budget_usd):
            return None, messages
        results = []
        for b in response.content:
            if b.type != "tool_use":
                continue
            decision = gate.decide(b.name, b.input) if gate else None
            if decision is not None and decision.action == "deny":
                results.append({"type": "tool_result", "tool_use_id": b.id,
                                "content": decision.reason, "is_error": True})
            else:
                results.append({"type": "tool_result", "tool_use_id": b.id,
                                "content": run_tool(b.name, b.input)})
        messages = messages + [reply, {"role": "user", "content": results}]
        turns += 1


@pytest.mark.parametrize("name", ["aurora_run", "one_shot", "fix_failing_test", "unknown_tool",
                                  "truncated", "refusal"])
def test_a_lesson_03_loop_gives_the_reference_loops_calls_turns_and_outcome(name):
    ours, theirs = Explorer(name, loop=agent_loop), Explorer(name)
    mine, ref = ours.frames[-1], theirs.frames[-1]
    assert (mine.outcome, mine.calls, mine.turns, mine.answer) == (
        ref.outcome,
        ref.calls,
        ref.turns,
        ref.answer,
    )
    assert [f.step.split(" (")[0] for f in ours.frames[:-1]] == [
        f.step.split(" (")[0] for f in theirs.frames[:-1]
    ]
    for frame in ours.frames:
        assert MessageList(frame.messages, final_assistant=True).holds, frame.step


def test_the_max_turns_slider_drives_the_students_loop():
    e = Explorer("always_tool", loop=agent_loop)
    for T in (0, 1, 4):
        e.set(max_turns=T)
        last = e.frames[-1]
        assert (last.outcome, last.calls, last.turns, last.answer) == (
            "error_max_turns",
            T + 1,
            T,
            None,
        )
        assert f"model calls: {T + 1} / {T + 1} (T+1)" in e.view.value


def test_the_last_frame_is_the_history_the_student_returned():
    e = Explorer("aurora_run", loop=agent_loop, max_turns=1)
    last = e.frames[-1]
    # lesson 03 drops the unrun reply
    assert [m["role"] for m in last.messages] == ["user", "assistant", "user"]
    assert last.pending is not None and "tool_use blocks not run" in last.step
    assert "your agent_loop" in e.ui.children[2].value


def test_controls_the_loop_does_not_take_are_disabled_and_named():
    e = Explorer("gated_write", loop=agent_loop)
    assert e.budget.disabled and all(b.disabled for b in e.rules.children)
    assert e.setting.deny == () and e.setting.max_budget_usd is None
    note = e.ui.children[2].value
    assert ("not applied: budget (agent_loop takes no max_budget_usd=), gate (agent_loop takes no "
            "gate=)") in note


def test_a_loop_that_takes_a_budget_and_a_gate_gets_both():
    e = Explorer("always_tool", loop=budget_loop, max_budget_usd=0.0003)
    assert not e.budget.disabled and "every control applies" in e.ui.children[2].value
    last = e.frames[-1]
    assert last.outcome == "error_max_budget_usd" and last.spent >= 0.0003
    e = Explorer("gated_write", loop=budget_loop)
    assert e.setting.deny == ("write_file(/etc/*)",)
    refused = [b["content"] for m in e.frames[-1].messages for b in blocks(m) if b.get("is_error")]
    assert refused == ["Permission denied by rule deny write_file(/etc/*)"]


def broken_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    response = client.messages.create(model=model, max_tokens=max_tokens, tools=tools,
                                      messages=[{"role": "user", "content": prompt}])
    return response.content[0].txt, []  # a typo


def test_a_loop_that_raises_shows_a_clear_error_and_no_traceback():
    e = Explorer("aurora_run", loop=broken_loop)
    last = e.frames[-1]
    assert last.outcome == "loop_raised" and last.calls == 1
    line = broken_loop.__code__.co_firstlineno + 3  # the line with the typo
    assert last.step.startswith(f"broken_loop raised AttributeError at line {line} (return "
                                "response.content[0].txt")
    assert last.step.endswith("): 'ToolUseBlock' object has no attribute 'txt'")
    assert "broken_loop raised AttributeError" in e.view.value and "Traceback" not in e.view.value
    assert ">loop_raised</span>" in e.outcome_label.value
    e.set(max_turns=2)  # the explorer still works
    assert e.frames[-1].outcome == "loop_raised"


def test_a_loop_that_breaks_the_contract_is_told_what_it_returned():
    e = Explorer("one_shot", loop=lambda client, model, tools, run_tool, prompt, **kw: "Paris")
    assert e.frames[-1].step == ("<lambda> raised TypeError: agent_loop must return (answer, "
                                 "messages), not a str")


def test_a_request_the_api_rejects_shows_its_400():
    def no_tools(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
        client.messages.create(model=model, max_tokens=max_tokens,
                               messages=[{"role": "assistant", "content": "hi"}])

    steps = [f.step for f in Explorer("one_shot", loop=no_tools).frames]
    # the API's own words
    said = 'invalid_request_error: messages: first message must use the "user" role'
    assert steps[1] == f"call 1 failed: 400 {said}"
    assert steps[-1].startswith("no_tools raised BadRequestError at line ") and steps[-1].endswith(
        f"): 400 {said}")
    # not the SDK's str(): Error code: 400 - {'type': 'error', ...}
    assert "{" not in steps[-1].split("): ")[-1]


def test_a_loop_made_without_source_still_names_its_line():
    source = "def agent_loop(client, model, tools, run_tool, prompt, **kw):\n    return 1 / 0\n"
    assert Explorer("one_shot", loop=loaded(source)).frames[-1].step == (
        "agent_loop raised ZeroDivisionError at line 2: division by zero")


def test_a_loop_that_ignores_max_turns_is_stopped():
    def endless(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
        return agent_loop(client, model, tools, run_tool, prompt, max_turns=10_000,
                          max_tokens=max_tokens)

    last = Explorer("always_tool", loop=endless, max_turns=1).frames[-1]
    assert last.outcome == "loop_raised" and last.calls == CALL_CAP
    assert f"stops a loop after {CALL_CAP} model calls" in last.step


def test_a_loop_must_be_a_function():
    with pytest.raises(TypeError, match="agent_loop contract"):
        StudentLoop("agent_loop")


def test_the_explorer_and_check_run_a_loop_through_one_harness():
    seen = []

    def asks_a_missing_tool(run_tool):
        try:
            run_tool("no_such_tool", {})
        except Exception as e:
            seen.append(type(e))

    def loop(client, model, tools, run_tool, prompt, **kw):
        asks_a_missing_tool(run_tool)
        return "done", []

    Explorer("one_shot", loop=loop)
    NotebookContext(asks_a_missing_tool, shipped()).call(RUN_TOOL, scenario="one_shot")
    # one exception for a failing tool, whichever harness ran the loop
    assert seen == [ToolFailed, ToolFailed]
