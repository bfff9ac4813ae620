"""The genuine Claude Agent SDK (`query()`, an in-process MCP tool) and its bundled Claude Code CLI
against `python -m course serve` on loopback: offline, no key. Each test states what the real
harness sent and how it ended; docs/FRAMEWORKS.md records the same facts for readers."""
from __future__ import annotations

import asyncio
import json
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ClaudeSDKClient,
    ResultError,
    ResultMessage,
    ToolUseBlock,
)

from course.agent_sdk import (
    Served,
    agent_options,
    claude,
    collect,
    environment,
    mcp_server,
    scratch_home,
    serve,
)
from course.api import LocalAPI, Scripted, Server
from course.client import MODEL
from course.scenarios import SCENARIOS, get

pytestmark = pytest.mark.slow  # each test runs the Claude Code CLI (make check leaves them out)

AURORA = get("aurora_run")
CART = get("fix_cart_in_three_turns")


@pytest.fixture
def home(tmp_path):
    """A scratch HOME for the CLI (its config and session JSONL), holding a work folder for the
    files."""
    (tmp_path / "work").mkdir()
    return tmp_path


def aurora_options(api, home, **options):
    return agent_options(api, home, mcp_servers={"course": mcp_server(AURORA.tools())},
                         # an MCP tool needs permission too
                         allowed_tools=["mcp__course__search"], **options)


def replies(requests: list[dict]) -> list[list[str]]:
    """Each reply's blocks, as tool name or block type."""
    return [[b.get("name", b["type"]) for b in r["response"]["content"]] for r in requests
            if r["path"] == "/v1/messages" and r["status"] == 200]


def test_the_environment_keeps_the_cli_on_the_local_api_with_a_scratch_home(home):
    env = environment("http://127.0.0.1:1", home)
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1" and env["CLAUDE_CODE_DISABLE_"
                                                                     "NONESSENTIAL_TRAFFIC"] == "1"
    # a real key is never sent to the local API
    assert env["ANTHROPIC_API_KEY"] == "" and env["HOME"] == str(home)
    assert agent_options("http://127.0.0.1:1", home, max_turns=2).env == env


def aurora_from(environ: dict, monkeypatch) -> tuple:
    """Aurora Run's query() (max_turns=5) from a caller whose environment holds `environ`: (the run,
    every request as the server recorded it, with the scratch home, a new name each run, written
    HOME)."""
    home = scratch_home()
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    try:
        with serve("aurora_run", home / "wire.jsonl") as api:
            run = asyncio.run(collect(AURORA.prompt, aurora_options(api, home, max_turns=5)))
            sent = [json.loads(json.dumps(r).replace(str(home), "HOME")) for r in api.requests()]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return run, sent


@pytest.fixture(scope="module")
def aurora() -> tuple:
    """One Aurora Run from a caller with bash for its shell, read by every test about that run (each
    is seconds)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        return aurora_from({"SHELL": "/bin/bash", "TMPDIR": "/tmp"}, monkeypatch)


def bodies(sent: list[dict]) -> list[dict]:
    """The request bodies without metadata (random device and session ids)."""
    return [{k: v for k, v in r["body"].items() if k != "metadata"} for r in sent]


def test_the_cli_sends_the_same_requests_whatever_the_environment_of_its_caller(
    aurora, monkeypatch
):
    # query() passes the caller's os.environ on to the CLI: its shell, which Claude Code writes into
    # every request, and the settings of a Claude Code user's own shell profile
    bash = bodies(aurora[1])
    other = bodies(aurora_from({"SHELL": "/usr/bin/zsh", "TMPDIR": "/var/tmp/a-longer-folder",
                                "IS_SANDBOX": "1",
                                "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4096",
                                "DISABLE_PROMPT_CACHING": "1"},
                               monkeypatch)[1])
    assert len(bash) == 4 and bash == other
    assert "Shell: bash" in json.dumps(bash[0]["messages"][-1])  # the launcher's fixed shell


def test_the_scratch_home_has_the_same_length_wherever_tmpdir_points(monkeypatch, tmp_path):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    homes = [scratch_home(), scratch_home()]
    assert len({len(str(h)) for h in homes}) == 1 and all(h.parent == Path("/tmp") for h in homes)
    for h in homes:
        h.rmdir()


def test_aurora_run_through_an_in_process_mcp_tool_answers_1974(aurora):
    run, sent = aurora
    assert (run.result.subtype, run.result.result, run.result.num_turns, run.raised) == (
        "success",
        "1974",
        4,
        None,
    )
    # the MCP tool is deferred: announced by name, loaded by ToolSearch (a tool_reference), then
    # called twice
    assert replies(sent) == [["ToolSearch"], ["mcp__course__search"],
                             ["text", "mcp__course__search"], ["text"]]
    assert sent[0]["response"]["content"][0]["input"] == {"query": "select:mcp__course__search"}
    loaded = [t for t in sent[1]["body"]["tools"] if t["name"] == "mcp__course__search"]
    assert loaded and loaded[0]["defer_loading"] is True
    assert all(r["body"]["messages"][-1]["role"] == "system" for r in sent)  # every request ends so
    assert {r["query"] for r in sent} == {"beta=true"} and all(r["body"]["stream"] for r in sent)
    assert "context-management-2025-06-27" in sent[0]["headers"]["anthropic-beta"]
    assert [m.content[0].name for m in run.messages if isinstance(m, AssistantMessage)
            and isinstance(m.content[0], ToolUseBlock)] == ["ToolSearch", "mcp__course__search",
                                                            "mcp__course__search"]


async def conversation(options, questions: list[str]) -> list[str]:
    """Each question asked in turn in one ClaudeSDKClient session, and the result of each."""
    async with ClaudeSDKClient(options) as client:
        answers = []
        for question in questions:
            await client.query(question)
            answers += [m.result async for m in client.receive_response()
                        if isinstance(m, ResultMessage)]
    return answers


def test_follow_ups_in_one_claude_sdk_client_are_not_given_the_first_answer_again(home):
    with serve("aurora_run", home / "wire.jsonl") as api:
        answers = asyncio.run(conversation(aurora_options(api, home, max_turns=5), [
            AURORA.prompt, "What is the capital of France?", AURORA.prompt]))
        sent = api.requests()
    # the follow-up carries the whole conversation; the toy model knows one task and says so; asked
    # again, 1974
    assert answers == ["1974", "This toy model knows only the first request of this conversation, "
                               f"not this one: {AURORA.prompt}", "1974"]
    assert len(sent) == 6 and all(r["status"] == 200 for r in sent)


def test_at_max_turns_3_the_sdk_makes_3_requests_and_reports_num_turns_4(home):
    with serve("aurora_run", home / "wire.jsonl") as api:
        run = asyncio.run(collect(AURORA.prompt, aurora_options(api, home, max_turns=3)))
        sent = api.requests()
    assert (run.result.subtype, run.result.num_turns, run.result.terminal_reason) == (
        "error_max_turns",
        4,
        "max_turns",
    )
    # query() raises after it
    assert len(sent) == 3 and run.result.is_error and isinstance(run.raised, ResultError)


def failing_policy(conversation):
    raise RuntimeError("no answer")  # the local API answers 500 with x-should-retry: false


def test_an_api_error_ends_as_success_with_is_error_and_terminal_reason_api_error(home):
    with Server(LocalAPI(failing_policy)) as server:
        run = asyncio.run(collect(AURORA.prompt, agent_options(server.base_url, home, max_turns=3)))
        statuses = [r.status for r in server.api.requests]
    assert (run.result.subtype, run.result.is_error, run.result.terminal_reason) == (
        "success",
        True,
        "api_error",
    )
    assert run.result.api_error_status == 500 and statuses == [500] and isinstance(
        run.raised, ResultError)
    assert run.result.result.startswith("API Error: 500 the local API's policy failed: "
                                        "RuntimeError: no answer")


def test_claude_code_max_retries_sets_how_often_claude_code_retries_a_500(home):
    # ten retries on Claude Code's own backoff by default: a 500 that stays costs about 182 s
    # (docs/FRAMEWORKS.md); a test that injects one sets CLAUDE_CODE_MAX_RETRIES, as this one does
    api = AURORA.api().inject("server_error", times=3)
    with Server(api) as server:
        run = asyncio.run(
            collect(
                AURORA.prompt,
                agent_options(
                    server.base_url, home, max_turns=3, env={"CLAUDE_CODE_MAX_RETRIES": "2"}
                ),
            )
        )
    assert [r.status for r in api.requests] == [
        500,
        500,
        500,
    ] and run.result.api_error_status == 500
    assert run.result.terminal_reason == "api_error" and run.result.result.startswith(
        "API Error: 500")


def test_a_400_is_sent_again_without_some_betas_then_ends_the_run_as_an_api_error(home):
    # the scripted policy has no turn to give: a 400 every time
    with Server(LocalAPI(Scripted([]))) as server:
        run = asyncio.run(collect(AURORA.prompt, agent_options(server.base_url, home, max_turns=3)))
        sent = server.api.requests
    betas = [set(r.headers["anthropic-beta"].split(",")) for r in sent]
    assert (run.result.terminal_reason, run.result.api_error_status) == ("api_error", 400)
    assert len(sent) > 1 and all(r.status == 400 for r in sent) and betas[-1] < betas[0]


# cart.py fixed by Claude Code in print mode: with its tools allowed, and with no permission given
CART_PERMISSIONS = {"allowed": ("--allowedTools", "Read,Edit,Bash(python3 test_cart.py)"),
                    "refused": ()}


@pytest.fixture(scope="module")
def cart_runs(tmp_path_factory) -> dict:
    """Each of CART_PERMISSIONS run, the two CLIs side by side: name -> (its result, its requests,
    cart.py after it)."""
    def run(name: str) -> tuple:
        home = tmp_path_factory.mktemp(name)
        work = home / "work"
        work.mkdir()
        for file, content in CART.files.items():
            (work / file).write_text(content)
        with serve("fix_cart_in_three_turns", home / "wire.jsonl") as api:
            done = claude(api, home, CART.prompt, "--max-turns", "6", *CART_PERMISSIONS[name],
                          cwd=work)
            return done, api.requests(), (work / "cart.py").read_text()

    with ThreadPoolExecutor() as pool:
        return dict(zip(CART_PERMISSIONS, pool.map(run, CART_PERMISSIONS), strict=True))


def test_the_real_harness_fixes_cart_py_with_bash_read_and_edit(cart_runs):
    done, sent, cart = cart_runs["allowed"]
    # Example 4.3 on the real harness: the edit and the re-run in one turn; 4 requests, num_turns 6
    assert replies(sent) == [["text", "Bash"], ["text", "Read", "Read"], ["text", "Edit", "Bash"],
                             ["text"]]
    assert (done["subtype"], done["num_turns"], done["is_error"]) == ("success", 6, False)
    assert "subtotal += price * qty" in cart
    results = [b for b in sent[-1]["body"]["messages"][-2]["content"] if b["type"] == "tool_result"]
    assert [r.get("is_error", False) for r in results] == [
        False,
        False,
    ] and "PASS test_quantity" in str(results)
    assert json.loads(json.dumps(done))["permission_denials"] == []


def test_without_permission_the_harness_refuses_the_edit_and_the_file_stays(cart_runs):
    done, _, cart = cart_runs["refused"]
    # the toy model reads the refusal
    assert done["subtype"] == "success" and "not allowed" in done["result"]
    assert [d["tool_name"] for d in done["permission_denials"]][:1] == ["Bash"]
    assert cart == CART.files["cart.py"]


def test_the_blogs_goal_run_fixes_all_four_functions_where_the_plain_request_fixes_one(home):
    # the Blog's experiment with Claude Code in print mode and its Read, Edit and Bash: asked
    # plainly, it fixes f1 and stops; with /goal, its evaluator (a request constrained to {ok,
    # reason, impossible}) says "not yet" three times, each reason goes back as Stop hook feedback,
    # and the run ends when check.py prints ALL OK
    funcs = get("broken_functions")

    def end(name: str, prompt: str) -> tuple:
        """(how the run ended, what check.py prints after it, the evaluator's verdicts), the CLI's
        home of its own."""
        work = home / name / "work"
        work.mkdir(parents=True)
        for file, content in funcs.files.items():
            (work / file).write_text(content)
        with serve("broken_functions", home / f"{name}.jsonl") as api:
            done = claude(api, home / name, prompt, "--allowedTools",
                          "Read,Edit,Bash(python3 check.py)",
                          "--max-turns", "40", cwd=work, timeout=300)
            sent = api.requests()
        check = subprocess.run(
            ["python3", "check.py"], cwd=work, capture_output=True, text=True
        ).stdout.strip()
        verdicts = [json.loads(r["response"]["content"][0]["text"]) for r in sent
                    if (r["body"].get("output_config") or {}).get("format")]
        return done["subtype"], check, [v["ok"] for v in verdicts]

    with ThreadPoolExecutor() as pool:  # the two runs side by side
        started = {name: pool.submit(end, name, prompt)
                   for name, prompt in (("plain", funcs.prompt), ("goal", "/goal " + funcs.prompt))}
    ends = {name: run.result() for name, run in started.items()}
    assert ends["plain"] == ("success", "NG: f2,f3,f4", [])
    assert ends["goal"] == ("success", "ALL OK", [False, False, False, True])


@pytest.mark.skipif(shutil.which("strace") is None,
                    reason="needs strace to see every connection the CLI opens")
def test_no_request_leaves_loopback(home):
    trace = home / "connect.trace"
    with serve("count_python_files", home / "wire.jsonl") as api:
        done = claude(api, home, get("count_python_files").prompt, cwd=home / "work",
                      # --seccomp-bpf: the CLI stops only at the syscalls traced
                      wrapper=("strace", "-f", "--seccomp-bpf", "-qq", "-e",
                               "trace=connect,sendto,sendmsg", "-o", str(trace)))
        sent = api.requests()
    port = int(api.base_url.rsplit(":", 1)[1])
    inet = re.findall(r"sin_port=htons\((\d+)\), sin_addr=inet_addr\(\"([\d.]+)\"\)",
                      trace.read_text())
    inet6 = re.findall(r"sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, \"([^\"]+)\"",
                       trace.read_text())
    # no DNS, no other host, no other port
    assert inet and {(int(p), a) for p, a in inet} == {(port, "127.0.0.1")}
    assert inet6 == [] and done["subtype"] == "success" and len(sent) == 2


def test_served_reads_the_requests_of_its_log(tmp_path):
    assert Served("http://127.0.0.1:1", tmp_path / "none.jsonl").requests() == []
    (tmp_path / "wire.jsonl").write_text(json.dumps({"path": "/v1/messages",
                                                     "body": {"model": MODEL}}) + "\n")
    assert (
        Served("http://127.0.0.1:1", tmp_path / "wire.jsonl").requests()[0]["body"]["model"]
        == MODEL
    )


MODES = ("auto", "plan")


@pytest.fixture(scope="module")
def in_modes(tmp_path_factory) -> dict:
    """count_python_files in each of MODES, the two CLIs side by side: mode -> (its result, its
    requests)."""
    def run(mode: str) -> tuple:
        home = tmp_path_factory.mktemp(mode)
        (home / "work").mkdir()
        for name in ("app.py", "util.py", "test_app.py", "README.md"):
            (home / "work" / name).write_text("x = 1\n")
        with serve("count_python_files", home / "wire.jsonl") as api:
            done = claude(api, home, get("count_python_files").prompt, "--permission-mode", mode,
                          "--max-turns", "4", cwd=home / "work")
            return done, api.requests()

    with ThreadPoolExecutor() as pool:
        return dict(zip(MODES, pool.map(run, MODES), strict=True))


@pytest.mark.parametrize("mode", MODES)
def test_in_auto_and_plan_modes_the_safeguards_claude_code_sends_are_accepted(in_modes, mode):
    done, sent = in_modes[mode]
    assert all("safeguards" in r["body"] for r in sent) and [r["status"] for r in sent] == [
        200,
        200,
    ]
    assert (done["subtype"], done["result"]) == ("success", "There are 3 Python files: app.py, "
                                                            "test_app.py, util.py.")


def test_the_agent_sdks_output_format_gets_its_structured_output(home):
    schema = {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]}
    with serve("aurora_run", home / "wire.jsonl") as api:
        run = asyncio.run(collect(AURORA.prompt,
                                  aurora_options(api, home, max_turns=8, output_format={
            "type": "json_schema", "schema": schema})))
        sent = api.requests()
    assert (run.result.subtype, run.result.structured_output) == ("success", {"year": 1974})
    # the answer, and the call Claude Code asks for
    assert replies(sent)[-1] == ["text", "StructuredOutput"]


# Claude Code's thinking: adaptive (its default), or off: its CLAUDE_CODE_DISABLE_THINKING leaves
# `thinking` out of every request (the SDK's thinking={"type": "disabled"} still sent adaptive, CLI
# 2.1.332)
THINKING = {"thinking": {}, "no_thinking": {"CLAUDE_CODE_DISABLE_THINKING": "1"}}


async def scenario_run(name: str, thinking: str, home: Path) -> tuple:
    """A scenario through query() with its tools as MCP tools beside Claude Code's own: (every
    request the local API answered, the run's ResultMessage)."""
    scenario = get(name)
    tools = scenario.tools()
    allowed = [f"mcp__course__{d['name']}" for d in tools.definitions()]
    with Server(scenario.api()) as server:
        options = agent_options(server.base_url, home, max_turns=8, allowed_tools=allowed,
                                env=THINKING[thinking], mcp_servers={"course": mcp_server(tools)})
        run = await collect(scenario.prompt, options)
        return server.api.requests, run.result


@pytest.fixture(scope="module")
def every_scenario(tmp_path_factory) -> dict:
    """Each scenario run both ways, four CLIs at a time (they overlap where a core is free):
    (name, thinking) -> (requests, result), or the exception the run raised."""
    async def every():
        at_once = asyncio.Semaphore(4)

        async def one(name: str, thinking: str):
            async with at_once:
                return await scenario_run(name, thinking, tmp_path_factory.mktemp(name))

        keys = [(name, thinking) for name in sorted(SCENARIOS) for thinking in sorted(THINKING)]
        runs = await asyncio.gather(*(one(*key) for key in keys), return_exceptions=True)
        return dict(zip(keys, runs, strict=True))

    return asyncio.run(every())


@pytest.mark.parametrize("thinking", sorted(THINKING))
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_runs_under_claude_code_with_its_tools_over_mcp_and_the_built_in_tools_on(
    every_scenario, name, thinking):
    # Claude Code's normal setup: the scenario's tools are deferred MCP tools, loaded by ToolSearch,
    # beside its own; thinking as Claude Code asks for it (adaptive), or off
    ran = every_scenario[name, thinking]
    if isinstance(ran, BaseException):
        raise ran
    sent, result = ran
    statuses = [r.status for r in sent]
    refused = sent[-1].response.get("stop_reason") == "refusal"
    # Claude Code reports the refusal scenario's refusal as an API error ("... safeguards flagged
    # this message")
    assert set(statuses) == {200} and (result.terminal_reason != "api_error") != refused, (
        statuses,
        result.result,
    )
    asked = {(r.body.get("thinking") or {}).get("type") for r in sent if r.path == "/v1/messages"}
    assert asked == ({"adaptive"} if thinking == "thinking" else {None})
