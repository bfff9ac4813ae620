"""Differential test: the student's loop (lesson 09's agent_loop) and the genuine Claude Agent SDK
on every scenario.

Both run on the same scenario's local API (the SDK's CLI over loopback) with the same tools (the SDK
gets them as in-process MCP tools, `mcp__course__<name>`, and no built-in tool) and the same turn
cap. Compared: each reply (text, and tool calls by role with their input), the answer, the files
after. Where they differ, DIFFERENCES names why, and the test fails if a difference appears, or goes
away, unnamed. Differences in every run are checked once, in the last tests: what the SDK adds to
each request, and how each counts.
"""
from __future__ import annotations

import asyncio

import pytest

from course.agent_sdk import agent_options, collect, mcp_server
from course.api import Server
from course.api.toolset import role
from course.lessons import final_loop, loop_setup
from course.scenarios import HARNESS, SCENARIOS

pytestmark = pytest.mark.slow  # each case runs the Claude Code CLI (make check leaves them out)

T = 6  # the turn cap both get
EVERY = {**SCENARIOS, **HARNESS}

# scenario -> (what differs, why)
DIFFERENCES = {
    "always_tool": ({"replies"}, "turn counting: the SDK stops after T requests (error_max_turns, "
                                 "num_turns T+1); the student's loop makes T+1 calls (Thm. 4.1), "
                                 "its last one unanswered"),
    "pause_turn": ({"replies", "answer"},
                   "the SDK ends its run on pause_turn and answers with the paused text; "
                                          "the student's loop sends the turn back and gets the "
                                          "finished answer"),
    "truncated": ({"replies", "answer", "files"},
                  "Claude Code asks for max_tokens 128000, so the long write is never "
                                                  "cut; the student's loop (max_tokens 1024) is "
                                                  "cut and stops"),
    "refusal": ({"replies", "answer"},
                "Claude Code asks again after a refusal and ends with an API-error text "
                                       "(is_error); the student's loop stops on the refusal"),
    "gated_write": ({"replies", "answer"},
                    "no gate: the SDK's gate is its permissions (can_use_tool, "
                                           "allowed_tools); here every course tool is allowed, so "
                                           "the tool itself refuses /etc/x, and the last reply "
                                           "quotes another refusal"),
    "unknown_tool": ({"replies", "answer"},
                     "the harness answers a call to an undeclared tool in its own words "
                                            "(<tool_use_error>No such tool available), which the "
                                            "toy model does not recognise: it gives up instead of "
                                            "retrying with read_file"),
}


def replies(requests) -> list[list[tuple]]:
    """Each reply as (text) and (tool role, input) items: the same calls whoever hosts the tools."""
    return [[("text", b["text"]) if b["type"] == "text" else (role(b["name"]), b["input"])
             if b["type"] == "tool_use"
             else (b["type"],) for b in r.response["content"]]
            for r in requests if r.path == "/v1/messages" and r.status == 200]


def student(scenario) -> dict:
    api, workspace = scenario.api(), scenario.workspace()
    tools = scenario.tools(workspace)
    read_only = tuple(d["name"] for d in tools.definitions() if tools.is_read_only(d["name"]))
    answer, _ = final_loop()(*loop_setup(scenario, api=api, workspace=workspace), max_turns=T,
                             gate=scenario.gate, read_only=read_only)
    return {"replies": replies(api.requests), "answer": answer, "files": workspace.files,
            "requests": api.requests}


async def agent_sdk(scenario, home) -> dict:
    api, workspace = scenario.api(), scenario.workspace()
    tools, ran = scenario.tools(workspace), []
    run_tool = tools.run
    # the calls the SDK had run
    tools.run = lambda name, input: ran.append(name) or run_tool(name, input)
    with Server(api) as server:
        options = agent_options(server.base_url, home, mcp_servers={"course": mcp_server(tools)},
                                tools=[],
                                allowed_tools=[f"mcp__course__{d['name']}"
                                               for d in tools.definitions()], max_turns=T)
        run = await collect(scenario.prompt, options)
    return {"replies": replies(api.requests), "answer": run.result.result, "files": workspace.files,
            "requests": api.requests, "result": run.result, "ran": ran}


async def every_sdk_run(homes: dict) -> list[dict]:
    """The SDK's run of each scenario (name -> its CLI's home), four CLIs at a time (they overlap
    where a core is free)."""
    at_once = asyncio.Semaphore(4)

    async def one(name: str) -> dict:
        async with at_once:
            return await agent_sdk(EVERY[name], homes[name])

    return await asyncio.gather(*(one(name) for name in homes))


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """Every scenario run once by each: name -> (the student's, the SDK's)."""
    sdk = asyncio.run(every_sdk_run({name: tmp_path_factory.mktemp(name) for name in EVERY}))
    return {name: (student(s), theirs) for (name, s), theirs in zip(EVERY.items(), sdk,
                                                                   strict=True)}


@pytest.mark.parametrize("name", sorted(EVERY))
def test_the_students_loop_and_the_agent_sdk_differ_only_where_named(runs, name):
    mine, sdk = runs[name]
    differ = {aspect for aspect in ("replies", "answer", "files") if mine[aspect] != sdk[aspect]}
    assert differ == DIFFERENCES.get(name, (set(), ""))[0], (
        f"{name}: {mine[next(iter(differ), 'answer')]!r} vs {sdk[next(iter(differ), 'answer')]!r}"
    )


def test_turn_counting_the_sdk_makes_t_requests_where_the_students_loop_makes_t_plus_1(runs):
    mine, sdk = runs["always_tool"]
    assert (len(mine["requests"]), len(sdk["requests"])) == (T + 1, T)
    assert (sdk["result"].subtype, sdk["result"].num_turns) == ("error_max_turns", T + 1)
    # both ran T tool turns: the SDK runs the calls of its T-th response, the student's loop not
    # those of its last
    users = [m for m in mine["requests"][-1].body["messages"] if m["role"] == "user"]
    # the prompt and T results before the unanswered call
    assert len(sdk["ran"]) == T and len(users) == T + 1


def test_num_turns_on_a_run_the_model_ends_counts_one_plus_each_tool_result(runs):
    # a parallel turn of k calls counts k: 5 requests, 5 tool calls (two read in one turn),
    # num_turns 6
    mine, sdk = runs["fix_failing_test"]
    calls = sum(1 for reply in sdk["replies"] for item in reply if item[0] != "text")
    assert (len(sdk["requests"]), calls, sdk["result"].num_turns) == (5, 5, 6) and len(
        mine["requests"]) == 5
    assert all(
        runs[n][1]["result"].num_turns
        == 1 + sum(1 for reply in runs[n][1]["replies"] for item in reply if item[0] != "text")
        for n in ("aurora_run", "one_shot", "parallel_reads", "outbox")
    )


def test_what_the_sdk_adds_to_every_request_and_the_students_loop_does_not(runs):
    mine, sdk = runs["aurora_run"]
    # a system message last, the tools under MCP names, a placeholder, stream, betas
    for r in sdk["requests"]:
        assert (
            r.body["messages"][-1]["role"] == "system"
            and r.body["stream"]
            and r.body["max_tokens"] == 128_000
        )
        assert [t["name"] for t in r.body["tools"]] == ["DeferredToolPlaceholder",
                                                        "mcp__course__search"]
        assert r.query == "beta=true" and r.headers["anthropic-beta"]
    for r in mine["requests"]:
        assert {m["role"] for m in r.body["messages"]} == {"user", "assistant"} - (
            {"assistant"} if len(r.body["messages"]) == 1 else set()
        ) and [t["name"] for t in r.body["tools"]] == ["search"]
    assert (sdk["result"].subtype, sdk["result"].num_turns, len(sdk["requests"])) == (
        "success",
        3,
        3,
    )


def test_a_large_tool_result_is_counted_and_kept_out_of_the_sdks_next_request(runs):
    _, sdk = runs["large_result"]
    assert [r.path for r in sdk["requests"]].count("/v1/messages/count_tokens") == 1
    last = sdk["requests"][-1].body["messages"]
    assert "<persisted-output>" in str(last) and "Output too large" in str(last)
