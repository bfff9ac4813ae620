"""No malformed request crashes the local API: real clients' requests (tests/api/shapes/: Claude
Code's, the Agent SDK's, an anthropic SDK tool loop's), mutated by hypothesis and sent over loopback
with httpx, each get an answer with the API's error shape, a 400 naming the bad field, never a 5xx
or a dropped connection.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from course.api import Server
from course.scenarios import get

SHAPES = {p.stem: json.loads(p.read_text(encoding="utf-8"))
          for p in sorted((Path(__file__).parent / "shapes").glob(
    "*.json"))}
# the 400s about the request as a whole, which name no one field (the real API's wording)
WHOLE = re.compile(r"^(A maximum of \d+ blocks with cache_control|prompt is too long|Request body "
                   r"must be)")
SCALARS = (st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.floats(
    allow_nan=False, allow_infinity=False)
           | st.text(max_size=8) | st.sampled_from(["", " ", "ephemeral", "text", "1h", "object"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.sampled_from(["type", "text", "source", "ttl", "content", "name", "x"]), inner, max_size=3),
                    max_leaves=6)
TYPES = st.sampled_from(["text", "image", "document", "tool_use", "tool_result", "thinking",
                         "redacted_thinking",
                         "tool_reference", "search_result", "ephemeral", "enabled", "adaptive",
                         "json_schema", "auto", "tool", "url", "base64", "object", "gadget"])


def paths(value, at=()) -> list[tuple]:
    """Every place in a JSON value, as a path of keys and indices."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, (*at, i))
    return found


def mutated(body: dict, path: tuple, how: str, value) -> dict:
    """`body` with the value at `path` replaced by `value`, deleted, given an extra key, or given
    another type."""
    body = json.loads(json.dumps(body))
    if not path:
        return value if how == "replace" else body
    parent = body
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    node = parent.get(last) if isinstance(parent, dict) else parent[last]
    if how == "delete":
        del parent[last]
    elif how == "extra" and isinstance(node, dict):
        node["bogus_field"] = value
    elif how == "retype" and isinstance(node, dict):
        node["type"] = value if isinstance(value, str) else "gadget"
    else:
        parent[last] = value
    return body


@st.composite
def malformed(draw) -> tuple[str, dict]:
    """A real client's request with one or two places changed."""
    name = draw(st.sampled_from(sorted(SHAPES)))
    body = SHAPES[name]["body"]
    for _ in range(draw(st.integers(1, 2))):
        how = draw(st.sampled_from(["replace", "delete", "extra", "retype"]))
        value = draw(TYPES if how == "retype" else JSON)
        body = mutated(body, draw(st.sampled_from(paths(body))), how, value)
    return name, body


@pytest.fixture(scope="module")
def servers():
    """One loopback server per shape, answering with the shape's scenario, and an httpx client."""
    running = {name: Server(get(shape["scenario"]).api(record=False)).start() for name,
               shape in SHAPES.items()}
    with httpx.Client(timeout=30) as http:
        yield running, http
    for server in running.values():
        server.stop()


def send(servers, name: str, body) -> httpx.Response:
    running, http = servers
    response = http.post(f"{running[name].base_url}/v1/messages", json=body,
                         headers={"authorization": "Bearer local",
                                  "anthropic-version": "2023-06-01"})
    response.read()
    return response


def answered_as_the_api_answers(response: httpx.Response, body) -> None:
    assert response.status_code in (200, 400, 404), (response.status_code, response.text[:500])
    if response.status_code == 200:
        return
    error = response.json()
    assert error["type"] == "error" and set(error["error"]) == {"type", "message"}
    if response.status_code == 404:  # an unknown model, once the request is well formed
        assert error["error"]["type"] == "not_found_error" and "model" in error["error"]["message"]
        return
    message = error["error"]["message"]
    assert error["error"]["type"] == "invalid_request_error"
    named = message.split(":", 1)[0].split(".", 1)[0].split(" ", 1)[0].strip("`")
    assert WHOLE.match(message) or (isinstance(body, dict)
                                    and named in {*body, "model", "max_tokens", "messages"}), \
        message


def test_the_recorded_shapes_are_answered(servers):
    for name, shape in SHAPES.items():
        response = send(servers, name, shape["body"])
        assert response.status_code == 200, (name, response.text[:500])


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(malformed())
def test_a_malformed_request_gets_a_400_naming_the_field_never_a_crash(servers, case):
    name, body = case
    answered_as_the_api_answers(send(servers, name, body), body)


LOOP = SHAPES["sdk_tool_loop"]["body"]


@pytest.mark.parametrize("path, value, wording", [
    (("system", 0, "cache_control"), "ephemeral",
     "system.0.cache_control: Input should be a valid dictionary"),
    (("system", 0, "cache_control"), {"type": "ephemeral", "ttl": "2h"},
     "system.0.cache_control.ttl: Input should be '5m' or '1h'"),
    (("messages", 2, "content", 0, "content"), [42],
     "messages.2.content.0.tool_result.content.0: Input should be a valid dictionary"),
    (("messages", 0, "content", 0, "text"), 42,
     "messages.0.content.0.text.text: Input should be a valid string"),
    (("output_config",), "json", "output_config: Input should be a valid dictionary"),
    (("output_config",), {"format": {"type": "json_schema", "schema": "{}"}},
     "output_config.format.schema: Input should be a valid dictionary"),
])
def test_the_crashes_the_fuzz_found_are_400s_naming_the_field(servers, path, value, wording):
    response = send(servers, "sdk_tool_loop", mutated(LOOP, path, "replace", value))
    assert (response.status_code, response.json()["error"]["message"]) == (400, wording)
