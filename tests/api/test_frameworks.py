"""The agent frameworks students use next, against `python -m course serve --scenario aurora_run` on
loopback.

Each case runs a snippet of docs/FRAMEWORKS.md, as written there, with the frameworks' own venv
(build/frameworks/, built once by `make build/frameworks/.installed` or by the first test that needs
it; every snippet in turn in one process of it), and states what the framework sent (from the
server's --log) and what it got back. Every reply
of every case is checked: it calls only tools its request declared.
"""
from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.envs import make_venv, once
from course.api import Server
from course.client import MODEL
from course.scenarios import HARNESS, SCENARIOS, get

pytestmark = pytest.mark.slow  # three agent frameworks in their own venv: make test, not make check

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "FRAMEWORKS.md"
ENV = ROOT / "build" / "frameworks"
REQUIREMENTS = ["pydantic-ai-slim[anthropic]==2.68.0", "langchain-anthropic==1.7.10",
                "langgraph==1.2.22"]
STAMP = ENV / ".installed"


def snippets() -> dict[str, str]:
    """name -> code of every `<!-- snippet: name -->` python block of the doc."""
    found = re.findall(r"<!-- snippet: (\w+) -->\n```python\n(.*?)```",
                       DOC.read_text(encoding="utf-8"), re.S)
    return dict(found)


def install() -> Path:
    """The frameworks' venv, installed once from PyPI (the course's own venv stays lean); its
    python."""
    once(STAMP, "\n".join(REQUIREMENTS),
         lambda: make_venv(ENV, *REQUIREMENTS, with_course=False, stdout=subprocess.DEVNULL))
    return ENV / "bin" / "python"


@pytest.fixture(scope="session")
def framework_python() -> Path:
    return install()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`python -m course serve` for aurora_run on a free port, for every test here (its toy model
    answers each conversation by what it holds): (base_url, the path of its request log)."""
    log = tmp_path_factory.mktemp("wire") / "wire.jsonl"
    server = subprocess.Popen([sys.executable, "-m", "course", "serve", "--scenario", "aurora_run",
                               "--port", "0",
                               "--log", str(log)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        yield server.stdout.readline().strip(), log
    finally:
        server.terminate()
        server.wait(timeout=10)


OTHER_TOOLS = """
import os

from langchain_anthropic import ChatAnthropic
from langchain_core.tools import tool


@tool
def lookup(title: str) -> str:
    \"\"\"Look a page up by its title.\"\"\"
    return "No matching page found."


llm = ChatAnthropic(model="claude-haiku-5-5", api_key="local", base_url=os.environ["COURSE_API"])
print(llm.bind_tools([lookup]).invoke("In which year was the director of the film Aurora Run born?").content)
"""  # noqa: E501


DIRECT = """
import json
import os

from langchain_anthropic import ChatAnthropic
from pydantic import BaseModel, Field


class Answer(BaseModel):
    \"\"\"The answer to the question.\"\"\"

    answer: str = Field(description="the answer, in a few words")
    year: int | None = Field(default=None, description="a year, if the answer has one")


for url, prompt in json.loads(os.environ["COURSE_APIS"]):
    llm = ChatAnthropic(model="claude-haiku-5-5", api_key="local", base_url=url, max_retries=0)
    for method in ("function_calling", "json_schema"):  # a forced tool; output_config.format
        try:
            print(json.dumps(llm.with_structured_output(Answer, method=method).invoke(prompt).model_dump()))
        except Exception as e:
            print(json.dumps(type(e).__name__))
"""  # noqa: E501


# Every case in one process of the frameworks' venv (their imports take seconds each): each run as a
# script, what it printed kept, and the server's log measured before and after it.
DRIVER = """
import contextlib, io, json, os, sys, traceback

log = os.environ["COURSE_LOG"]
for name, code in json.loads(sys.stdin.read()):
    start, printed, error = os.path.getsize(log), io.StringIO(), None
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(code, name, "exec"), {"__name__": "__main__"})
    except BaseException:
        error = traceback.format_exc()
    print(json.dumps([name, printed.getvalue(), error, start, os.path.getsize(log)]), flush=True)
"""


@pytest.fixture(scope="module")
def cases(framework_python, server) -> dict:
    """name -> (what it printed, the traceback of what it raised or None, every request it sent
    with the answer it got), for every snippet of the doc and OTHER_TOOLS, run in turn."""
    url, log = server
    log.touch()
    done = subprocess.run([framework_python, "-c", DRIVER],
                          input=json.dumps([*snippets().items(), ("other_tools", OTHER_TOOLS)]),
                          env={"COURSE_API": url, "COURSE_LOG": str(log), "PATH": "/usr/bin"},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    wire = log.read_bytes()
    return {name: (out.strip(), error, [json.loads(line) for line in
                                        wire[start:end].decode().splitlines()])
            for name, out, error, start, end in map(json.loads, done.stdout.splitlines())}


def run(cases: dict, name: str) -> tuple[str, list[dict]]:
    """Case `name`: what it printed, and every request it sent with the answer it got."""
    out, error, wire = cases[name]
    assert error is None, error[-3000:]
    for exchange in wire:  # the reply obeys its request, whatever the toy model wanted
        declared = {t["name"] for t in (exchange["body"] or {}).get("tools") or []}
        called = {b["name"] for b in (exchange["response"] or {}).get("content") or []
                  if b["type"] == "tool_use"}
        assert called <= declared, (f"a reply called {called - declared}, which its request did "
                                    "not declare")
    return out, wire


def sent(wire: list[dict], key: str) -> list:
    return [(w["body"] or {}).get(key) for w in wire if w["path"] == "/v1/messages"]


def replies(wire: list[dict]) -> list[list[str]]:
    """Each reply's blocks, as type or tool name."""
    return [[b.get("name", b["type"]) for b in w["response"]["content"]] for w in wire
            if w["path"] == "/v1/messages"]


def test_the_docs_snippets_use_the_courses_model():
    assert set(re.findall(r'"(claude-[a-z0-9-]+)"', DOC.read_text())) == {MODEL}
    assert sorted(snippets()) == sorted(["pydantic_ai_loop", "pydantic_ai_output",
                                         "pydantic_ai_stream",
                                         "langchain_loop", "langchain_structured",
                                         "langchain_stream"])


def test_pydantic_ai_agent_loop(cases):
    out, wire = run(cases, "pydantic_ai_loop")
    # sent: three requests declaring search, tool_choice left to the model; got: search, search,
    # then the answer
    assert [w["status"] for w in wire] == [200] * 3
    assert [[t["name"] for t in tools] for tools in sent(wire, "tools")] == [["search"]] * 3
    assert replies(wire) == [["search"], ["text", "search"], ["text"]] and out == "1974"


def test_pydantic_ai_structured_output(cases):
    out, wire = run(cases, "pydantic_ai_output")
    # sent: a JSON schema in output_config.format; got: search, search (no free text), then the JSON
    schema = sent(wire, "output_config")[0]["format"]["schema"]
    assert schema["properties"] == {"response": {"type": "integer"}} and replies(wire) == [
        ["search"]
    ] * 2 + [["text"]]
    assert (
        json.loads(wire[-1]["response"]["content"][0]["text"]) == {"response": 1974}
        and out == "1974"
    )


def test_pydantic_ai_streaming(cases):
    out, wire = run(cases, "pydantic_ai_stream")
    # every call streamed, in pieces
    assert all(sent(wire, "stream")) and len(wire) == 3 and out == "True 1974"


def test_langgraph_react_agent(cases):
    out, wire = run(cases, "langchain_loop")
    assert replies(wire) == [["search"], ["text", "search"], ["text"]] and out == "1974"


def test_langchain_structured_output(cases):
    out, wire = run(cases, "langchain_structured")
    # sent last: one tool, Year, forced by name, after the agent's conversation; got:
    # Year(year=1974), never search
    assert [t["name"] for t in sent(wire, "tools")[-1]] == ["Year"]
    assert sent(wire, "tool_choice")[-1] == {"type": "tool", "name": "Year"}
    assert replies(wire)[-1] == ["Year"] and out == "Year(year=1974)"


def test_langchain_with_structured_output_called_directly_gets_a_valid_value_on_every_scenario(
    framework_python):
    # each scenario's prompt, no agent and no tools: the schema's answer straight from the toy
    # model, both methods
    names = sorted({**SCENARIOS, **HARNESS})
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(Server(get(name).api())) for name in names]
        apis = json.dumps([(server.base_url, get(name).prompt) for server,
                           name in zip(servers, names, strict=True)])
        done = subprocess.run([framework_python, "-c", DIRECT],
                              env={"COURSE_APIS": apis, "PATH": "/usr/bin"},
                              capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = [json.loads(line) for line in done.stdout.splitlines()]
    got = {name: (printed[2 * i], printed[2 * i + 1]) for i, name in enumerate(names)}
    assert {r.status for server in servers for r in server.api.requests} == {200}
    # langchain's own error for stop_reason refusal
    assert got.pop("refusal")[1] == "ModelRefusalError"
    # an Answer, valid
    assert all(isinstance(value, dict) for pair in got.values() for value in pair), got
    assert got["one_shot"] == ({"answer": "Paris", "year": None},) * 2


def test_langgraph_streaming(cases):
    out, wire = run(cases, "langchain_stream")
    assert all(sent(wire, "stream")) and len(wire) == 3 and out.strip() == "1974"



def test_a_framework_with_other_tools_gets_text_never_a_call_it_did_not_declare(cases):
    out, wire = run(cases, "other_tools")
    # sent: the question with one tool, lookup; the toy model would call search: got a text answer,
    # as the real API could send, never a 500 that clients retry
    assert [w["status"] for w in wire] == [200] and replies(wire) == [["text"]]
    assert out == "I cannot do that here: none of my tools can search."


if __name__ == "__main__":  # `make build/frameworks/.installed`
    print(install())
