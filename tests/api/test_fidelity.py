"""The genuine SDK against both mounts of the local API, the SDK's own tool runner, and
`python -m course serve` as another process."""
from __future__ import annotations

import subprocess
import sys

import anthropic
import pytest
from anthropic import beta_tool

from course.api import Server
from course.client import MODEL, make_client
from course.loop import Agent
from course.messages import tool_use, user
from course.scenarios import SCENARIOS, get
from course.scenarios.search import search

AURORA = get("aurora_run")


def first_request() -> dict:
    return {"model": MODEL, "max_tokens": 256, "messages": [user(AURORA.prompt)],
            "tools": AURORA.tools().definitions()}


def test_create_gives_a_genuine_message(mount):
    client = mount(AURORA.api())
    raw = client.messages.with_raw_response.create(**first_request())
    reply = raw.parse()
    assert raw.headers["content-type"] == "application/json" and raw.headers[
        "request-id"
    ].startswith("req_")
    message = anthropic.types.Message.model_validate(raw.http_response.json())
    assert message.model_extra == {} and message == reply  # no field the SDK does not know
    assert (reply.type, reply.role, reply.model, reply.stop_reason) == (
        "message",
        "assistant",
        MODEL,
        "tool_use",
    )
    assert (
        isinstance(reply.content[0], anthropic.types.ToolUseBlock)
        and reply.content[0].name == "search"
    )


def test_stream_over_both_mounts(mount):
    client = mount(AURORA.api())
    with client.messages.stream(**first_request()) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use" and final.content[0].input == {"query": "Aurora Run"}


def test_count_tokens_over_both_mounts(mount):
    client = mount(AURORA.api())
    tools = AURORA.tools().definitions()
    counted = client.messages.count_tokens(
        model=MODEL, messages=[user(AURORA.prompt)], tools=tools
    ).input_tokens
    assert counted == client.messages.create(**first_request()).usage.input_tokens


def test_error_classes_over_both_mounts(mount):
    client = mount(AURORA.api(), max_retries=0)
    with pytest.raises(anthropic.BadRequestError,
                       match="tool_use` ids were found without `tool_result`"):
        client.messages.create(model=MODEL, max_tokens=64, messages=[
            user(AURORA.prompt),
            {"role": "assistant", "content": [tool_use("t1", "search", {"query": "x"})]},
            user("go on")])
    with pytest.raises(anthropic.NotFoundError, match="model: claude-haiku-5-4"):  # a typo
        client.messages.create(**{**first_request(), "model": "claude-haiku-5-4"})


def test_reference_loop_over_both_mounts(mount):
    result = Agent(mount(AURORA.api()), MODEL, AURORA.tools(), system=AURORA.system).run(
        AURORA.prompt)
    assert (result.text, result.calls) == ("1974", 3)


@pytest.mark.parametrize("stream", [False, True])
def test_the_sdks_tool_runner_completes_aurora_run_over_loopback(stream):
    searched = []

    @beta_tool
    def search_pages(query: str) -> str:
        """Search a small encyclopedia; returns the best matching page.

        Args:
            query: a page title
        """
        searched.append(query)
        return search(query)

    search_pages.name = "search"  # the name the scenario's model asks for
    api = AURORA.api()
    with Server(api) as server:
        client = make_client(base_url=server.base_url)
        runner = client.beta.messages.tool_runner(model=MODEL, max_tokens=1024,
                                                  tools=[search_pages],
                                                  messages=[user(AURORA.prompt)], max_iterations=5,
                                                  stream=stream)
        final = runner.until_done()
    assert [b.text for b in final.content if b.type == "text"] == ["1974"]
    assert searched == ["Aurora Run", "Mara Voss"] and len(api.requests) == 3
    assert [r.body.get("stream", False) for r in api.requests] == [stream] * 3


def test_serve_prints_its_url_and_answers_until_stopped():
    proc = subprocess.Popen([sys.executable, "-m", "course", "serve", "--scenario", "aurora_run",
                             "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        reply = make_client(base_url=url).messages.create(**first_request())
        assert reply.content[0].input == {"query": "Aurora Run"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_unknown_scenario_lists_the_valid_names():
    done = subprocess.run([sys.executable, "-m", "course", "serve", "--scenario", "atlantis"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "unknown scenario 'atlantis'" in done.stderr
    assert all(name in done.stderr for name in SCENARIOS)
