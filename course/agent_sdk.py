"""The genuine Claude Agent SDK and its bundled Claude Code CLI on the local API: the one place that
keeps them there.

`pip install claude-agent-sdk` brings the real harness (the CLI, about 385 MB). It honours
ANTHROPIC_BASE_URL, so pointed at `python -m course serve` it talks to the course's toy model, with
no key and no network:

    with serve("aurora_run", home / "wire.jsonl") as api:  # python -m course serve, on loopback
        options = agent_options(api, home, mcp_servers={"course": mcp_server(AURORA.tools())},
        max_turns=5)
        run = await collect(AURORA.prompt, options)        # query()'s messages, its ResultMessage,
        what it raised
        done = claude(api, home, "In which year ...?")     # or the CLI itself: claude -p ...
        --output-format json
        api.requests()                                     # what the harness sent, as the server
        recorded it

`home` is a scratch folder (`scratch_home()`): the CLI's HOME and config (sessions are JSONL under
home/.claude/projects/). The CLI gets an environment the course sets whole (`environment`), nothing
inherited.
"""
from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .client import LOCAL_KEY, MODEL

ROOT = Path(__file__).resolve().parent.parent


def cli_path() -> Path:
    """The Claude Code CLI the SDK bundles (claude_agent_sdk/_bundled/claude)."""
    import claude_agent_sdk

    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def environment(base_url: str, home: str | Path) -> dict[str, str]:
    """The CLI's whole environment: the local API's base URL and a token, no side traffic, a scratch
    home, and a fixed shell, PATH and locale. Nothing of the caller's environment is in it: Claude
    Code writes its shell into every request's system prompt, so an inherited SHELL would change the
    toy model's token counts.

    ANTHROPIC_AUTH_TOKEN is sent as `Authorization: Bearer` (the gateway route); ANTHROPIC_API_KEY
    is blank, so a real key is never sent anywhere.
    """
    home = Path(home)
    return {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_AUTH_TOKEN": LOCAL_KEY,
            "ANTHROPIC_API_KEY": "",
            # no telemetry, update checks or other side requests
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude"), "ANTHROPIC_MODEL": MODEL,
            "SHELL": "/bin/bash", "LANG": "C.UTF-8", "TMPDIR": str(home),
            # the toy model edits within a second: a same-size edit would leave Python a stale .pyc
            # to import
            "PYTHONDONTWRITEBYTECODE": "1",
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin",
                                     "/bin"])}


# what the Agent SDK itself sets for the CLI
# (claude_agent_sdk/_internal/transport/subprocess_cli.py), kept by the launcher beside the course's
# environment; everything else the SDK passes on from os.environ is dropped
SDK_SETS = ("CLAUDE_CODE_ENTRYPOINT", "CLAUDE_AGENT_SDK_VERSION", "CLAUDE_AGENT_SDK_CLIENT_APP",
            "CLAUDE_CODE_SDK_READS_SESSION_STATE", "CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING",
            "PWD")


def launcher(env: dict[str, str], home: str | Path) -> Path:
    """A script in `home` that starts the bundled CLI with exactly `env` and what the SDK sets:
    `query()` passes the caller's whole os.environ to the CLI under ClaudeAgentOptions.env, and only
    a launcher can leave it out."""
    # each passed on only when the SDK set it
    kept = " ".join(f'${{{k}+"{k}=${k}"}}' for k in SDK_SETS)
    given = " ".join(shlex.quote(f"{k}={v}") for k, v in sorted(env.items()))
    script = f'#!/bin/sh\nexec /usr/bin/env -i {given} {kept} {shlex.quote(str(cli_path()))} "$@"\n'
    path = Path(home) / f".claude-launcher-{hashlib.sha256(script.encode()).hexdigest()[:12]}"
    # one per environment: runs with other base URLs in the same home keep theirs
    if not path.exists():
        temporary = path.with_suffix(f".{os.getpid()}")
        temporary.write_text(script)
        temporary.chmod(0o755)
        temporary.replace(path)
    return path


def scratch_home() -> Path:
    """A new scratch folder for the CLI: /tmp/course-sdk-XXXXXXXX, the same length on every machine
    (the CLI names its working directory in every request, so a longer TMPDIR would change the token
    counts)."""
    return Path(tempfile.mkdtemp(prefix="course-sdk-", dir="/tmp"))


@dataclass
class Served:
    """A running `python -m course serve`: its address, and the requests it has answered (from its
    --log)."""

    base_url: str
    log: Path

    def requests(self) -> list[dict]:
        """Every request so far, as the server recorded it: path, query, anthropic-* headers, body,
        status, answer."""
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()
                if line.strip()]


@contextmanager
def serve(scenario: str, log: str | Path) -> Iterator[Served]:
    """`python -m course serve --scenario NAME` on a free loopback port, logging to `log`, until the
    block ends."""
    log = Path(log)
    server = subprocess.Popen([sys.executable, "-m", "course", "serve", "--scenario", scenario,
                               "--port", "0",
                               "--log", str(log)], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        # the address is printed once the port is bound
        # stdout=PIPE: never None
        yield Served(server.stdout.readline().strip(), log)  # type: ignore[union-attr]
    finally:
        server.terminate()
        server.wait(timeout=10)


def agent_options(api: Served | str, home: str | Path, **options):
    """ClaudeAgentOptions on the local API at `api` (a Served or a base URL); `options` as
    ClaudeAgentOptions takes them (cwd defaults to `home`)."""
    from claude_agent_sdk import ClaudeAgentOptions

    base_url = api.base_url if isinstance(api, Served) else api
    env = {**environment(base_url, home), **options.pop("env", {})}
    return ClaudeAgentOptions(env=env, cwd=options.pop("cwd", str(home)),
                              cli_path=str(launcher(env, home)), **options)


def claude(api: Served | str, home: str | Path, prompt: str, *args: str,
           cwd: str | Path | None = None,
           timeout: float = 60, wrapper: tuple[str, ...] = ()) -> dict:
    """`claude -p PROMPT --output-format json ARGS...` on the local API: the result JSON it prints
    (`wrapper` is a command put in front, e.g. strace)."""
    base_url = api.base_url if isinstance(api, Served) else api
    done = subprocess.run([*wrapper, str(cli_path()), "-p", prompt, "--output-format", "json",
                           *args],
                          env=environment(base_url, home),
                          cwd=cwd or home, capture_output=True, text=True, timeout=timeout)
    if not done.stdout.strip():
        raise RuntimeError(f"claude printed no result (exit {done.returncode}): "
                           f"{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def mcp_server(tools, name: str = "course"):
    """The course's tools (a Toolbox) as an in-process MCP server for the Agent SDK: each is called
    `mcp__<name>__<tool>`, runs in this process, and answers as Toolbox.run does (an error as
    `is_error`)."""
    from claude_agent_sdk import SdkMcpTool, create_sdk_mcp_server

    def handler(tool_name: str):
        async def run(arguments: dict) -> dict:
            content, is_error = tools.run(tool_name, arguments)
            return {"content": [{"type": "text", "text": content}], "is_error": is_error}
        return run

    return create_sdk_mcp_server(name=name, tools=[
        SdkMcpTool(d["name"], d.get("description", ""), d["input_schema"], handler(d["name"]))
        for d in tools.definitions()])


@dataclass
class Run:
    """One `query()`: every message it yielded, its ResultMessage, and the exception it raised after
    it, if any."""

    messages: list = field(default_factory=list)
    result: Any = None
    raised: Exception | None = None


async def collect(prompt, options) -> Run:
    """Run `query(prompt=..., options=...)` to its end (a ResultError after an error result is kept,
    not raised)."""
    from claude_agent_sdk import ResultMessage, query

    run = Run()
    try:
        async for message in query(prompt=prompt, options=options):
            run.messages.append(message)
            if isinstance(message, ResultMessage):
                run.result = message
    except Exception as e:
        # query() raises after an error result: the result is already in run.result
        if run.result is None:
            raise
        run.raised = e
    return run
