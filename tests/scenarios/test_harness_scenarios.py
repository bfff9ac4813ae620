"""The scenarios a real harness runs with its own tools, with the course's loop: the course's tools,
Claude Code's tool names (as the toy model chooses them), and a client that declares only `bash`, as
mini-swe-agent does."""
from __future__ import annotations

import subprocess

from course.events import SUCCESS
from course.loop import Limits
from course.messages import tool_uses, violations
from course.scenarios import HARNESS, SCENARIOS, get
from course.scenarios.harness import SUBMIT
from course.tools import Tool, Toolbox


def calls_per_turn(result):
    return [[(u["name"], u["input"].get("command")) for u in tool_uses(m)] for m in result.messages
            if m["role"] == "assistant"]


def bash_tool(folder) -> Toolbox:
    """mini-swe-agent's one tool: a command run by bash in the task's folder, its output and exit
    code back."""
    def bash(command: str) -> str:
        done = subprocess.run(["bash", "-c", command], cwd=folder, capture_output=True, text=True,
                              timeout=30)
        return f"returncode {done.returncode}\n{done.stdout}{done.stderr}"

    return Toolbox([Tool("bash", "Run a bash command.", {"type": "object", "properties": {
        "command": {"type": "string"}}, "required": ["command"]}, bash)])


def test_the_harness_scenarios_are_found_by_name_and_keep_the_invariant():
    assert sorted(HARNESS) == ["count_python_files", "fix_cart_in_three_turns"] and not set(
        HARNESS
    ) & set(SCENARIOS)
    for name in HARNESS:
        r = get(name).run()
        assert (
            violations(r.messages, final_assistant=True) == []
            and get(name).notes
            and get(name).title
        )


def test_the_models_9_3_prompt_counts_the_python_files():
    r = get("count_python_files").run()
    assert (r.subtype, r.calls, r.text) == (SUCCESS, 2, "There are 3 Python files: app.py, "
                                                        "test_app.py, util.py.")


def test_example_4_3_fixes_cart_py_in_three_tool_turns_and_four_calls():
    s = get("fix_cart_in_three_turns")
    ws = s.workspace()
    r = s.agent(workspace=ws).run(s.prompt)
    assert [[u["name"] for u in tool_uses(m)] for m in r.messages if m["role"] == "assistant"] == [
        ["run_python"], ["read_file", "read_file"], ["edit_file", "run_python"], []]
    assert r.subtype == SUCCESS and ws.run_python("test_cart.py")[0] == 0


def test_example_4_3_at_max_turns_2_stops_before_the_edit():
    s = get("fix_cart_in_three_turns")
    ws = s.workspace()
    r = s.agent(workspace=ws, limits=Limits(max_turns=2)).run(s.prompt)
    # 3 = T + 1 calls
    assert (r.subtype, r.calls) == ("error_max_turns", 3) and ws.files == s.workspace().files


def test_a_client_declaring_only_bash_finishes_the_task_and_submits(tmp_path):
    s = get("fix_cart_in_three_turns")
    for name, content in s.files.items():
        (tmp_path / name).write_text(content)
    r = s.agent(tools=bash_tool(tmp_path)).run(s.prompt)
    commands = calls_per_turn(r)
    assert [len(turn) for turn in commands] == [1, 2, 2, 1, 0] and commands[3] == [
        ("bash", f"echo {SUBMIT}")
    ]
    assert commands[1] == [("bash", "cat cart.py"), ("bash", "cat test_cart.py")]
    assert r.subtype == SUCCESS and "subtotal += price * qty" in (tmp_path / "cart.py").read_text()
    assert subprocess.run(["python3", "test_cart.py"], cwd=tmp_path).returncode == 0


def test_a_client_that_cannot_edit_hears_so_and_is_sent_no_empty_call():
    """Found by mypy: with read_file and run_python but no edit tool, the fix turn held None as a
    block."""
    s = get("fix_cart_in_three_turns")
    ws = s.workspace()
    tools = Toolbox([t for name, t in s.tools(ws).tools.items() if name != "edit_file"])
    r = s.agent(tools=tools).run(s.prompt)
    assert r.subtype == SUCCESS
    assert r.text == "I cannot edit cart.py and run the tests again with the tools I was given."
    assert violations(r.messages, final_assistant=True) == [] and ws.files == s.workspace().files
