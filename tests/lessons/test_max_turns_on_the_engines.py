"""Lesson 04's table of caps, checked on each engine: on a model that never stops asking for a tool
(always_tool), at T = 1, 2, 3, the course's max_turns (the Model's Def. 3.1), the Primer's loop, the
genuine Agent SDK's max_turns and the anthropic SDK's tool runner (max_iterations) make the model
calls the table states, run the last call's tools when it says they run, and end as it says. Both
editions' tables are read."""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import nbformat
import pytest
from anthropic import beta_tool

from course.agent_sdk import agent_options, collect, mcp_server, scratch_home
from course.api import Server
from course.client import MODEL, local_client
from course.lessons import LOOP_TAG, loop_setup, tagged_source
from course.loop import Limits
from course.scenarios import get

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
LESSON_04 = [NOTEBOOKS / "04_termination.ipynb", NOTEBOOKS / "ja" / "04_termination.ipynb"]
ALWAYS = get("always_tool")
CAPS = (1, 2, 3)
# the table's "the last call's tools"
RUN = {"run": True, "not run": False, "実行する": True, "実行しない": False}


def lesson_04(tag: str, name: str):
    namespace: dict = {}
    exec(compile(tagged_source(LESSON_04[0], tag), f"04:{tag}", "exec"), namespace)
    return namespace[name]


def hand_written(loop, cap: int) -> tuple[int, int, str]:
    """(model calls, tools run, how it ended) of a loop of lesson 04 with the cap
    `max_turns=cap`."""
    api, ran = ALWAYS.api(), []
    client, model, tools, run_tool, prompt = loop_setup(ALWAYS, api=api)
    answer, _ = loop(client, model, tools, lambda name,
                     input: ran.append(name) or run_tool(name, input), prompt, max_turns=cap)
    return len(api.requests), len(ran), f"`{answer}`"


def course_loop(cap: int) -> tuple[int, int, str]:
    calls, ran, answer = hand_written(lesson_04(LOOP_TAG, "agent_loop"), cap)
    # and course.loop.Agent
    return calls, ran, f"{answer}, `{ALWAYS.run(limits=Limits(max_turns=cap)).subtype}`"


def primer(cap: int) -> tuple[int, int, str]:
    return hand_written(lesson_04("primer-loop", "primer_loop"), cap)


def tool_runner(cap: int) -> tuple[int, int, str]:
    api, ran = ALWAYS.api(), []

    @beta_tool
    def search(query: str) -> str:
        """Search the pages."""
        ran.append(query)
        return "No matching page found."

    runner = local_client(api).beta.messages.tool_runner(
        model=MODEL, max_tokens=1024, tools=[search], max_iterations=cap,
        messages=[{"role": "user", "content": ALWAYS.prompt}])
    for _ in runner:  # iterating ends at the cap, without an error
        pass
    return len(api.requests), len(ran), ""


def agent_sdk(cap: int) -> tuple[int, int, str]:
    """The genuine Agent SDK and its Claude Code CLI, the scenario's tools as MCP tools; PostToolUse
    counted too."""
    from claude_agent_sdk import HookMatcher

    api, tools, ran, hooked = ALWAYS.api(), ALWAYS.tools(), [], []
    run_tool = tools.run
    tools.run = lambda name, input: ran.append(name) or run_tool(name, input)

    async def post_tool_use(input, tool_use_id, context):
        hooked.append(input["tool_name"])
        return {}

    with Server(api) as server:
        run = asyncio.run(collect(ALWAYS.prompt, agent_options(
            server.base_url, scratch_home(), mcp_servers={"course": mcp_server(tools)}, tools=[],
            allowed_tools=["mcp__course__search"], max_turns=cap,
            hooks={"PostToolUse": [HookMatcher(matcher=None, hooks=[post_tool_use])]})))
    # every tool that ran fired PostToolUse: the last call's included
    assert len(hooked) == len(ran)
    requests = [r for r in api.requests if r.path == "/v1/messages"]
    return len(requests), len(ran), f"`{run.result.subtype}`"


ENGINES = {"agent_loop": course_loop, "range(max_turns)": primer, "Agent SDK": agent_sdk,
           "max_iterations": tool_runner}  # a phrase of the row's first cell -> the engine it names


def table(path: Path) -> dict[str, tuple[int, bool, str]]:
    """The lesson's table of caps: engine -> (extra calls over T, whether the last call's tools run,
    the ending)."""
    [cell] = [c for c in nbformat.read(path, as_version=4).cells
              if c.cell_type == "markdown" and "`max_iterations=T`" in c.source
              and "|---|" in c.source]
    rows = {}
    for line in cell.source.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        engine = [k for k in ENGINES if k in cells[0]]
        if line.startswith("|") and engine and cells[1] in ("$T$", "$T + 1$"):
            rows[engine[0]] = (1 if cells[1] == "$T + 1$" else 0, RUN[cells[2]], cells[3])
    assert set(rows) == set(ENGINES), f"{path.name}: rows for {sorted(rows)}"
    return rows


@pytest.mark.parametrize("engine",
                         [pytest.param(k, marks=pytest.mark.slow) if k == "Agent SDK" else k
                                    for k in ENGINES])
@pytest.mark.parametrize("cap", CAPS)
def test_the_table_of_caps_states_what_each_engine_does(engine, cap):
    calls, ran, ending = ENGINES[engine](cap)
    for path in LESSON_04:
        extra, last_runs, stated_ending = table(path)[engine]
        assert calls == cap + extra, f"{path.name}, {engine} at T={cap}: {calls} model calls"
        assert ran == (calls if last_runs else calls - 1), (f"{path.name}, {engine} at T={cap}: "
                                                            f"{ran} tools ran")
        assert all(e in stated_ending for e in re.findall(r"`[^`]+`", ending)), (
            path.name,
            engine,
            ending,
        )


@pytest.mark.slow
def test_num_turns_at_a_cap_is_t_plus_1_even_when_a_response_asked_for_two_tools():
    """Lesson 14: at a max_turns cap num_turns is T + 1, not 1 plus each tool result
    (fix_failing_test's second response reads two files at once: 2 requests, 3 tools run, num_turns
    3)."""
    fix = get("fix_failing_test")
    api, tools, ran = fix.api(), fix.tools(fix.workspace()), []
    run_tool = tools.run
    tools.run = lambda name, input: ran.append(name) or run_tool(name, input)
    with Server(api) as server:
        run = asyncio.run(collect(fix.prompt, agent_options(
            server.base_url, scratch_home(), mcp_servers={"course": mcp_server(tools)}, tools=[],
            allowed_tools=[f"mcp__course__{d['name']}" for d in tools.definitions()], max_turns=2)))
    assert (len(api.requests), len(ran), run.result.subtype) == (2, 3, "error_max_turns")
    assert run.result.num_turns == 2 + 1 != 1 + len(ran)
