"""tool_choice: validated like the real API, and obeyed whatever the toy model wants: none, any,
tool (the answer fitted into the forced tool's schema), disable_parallel_tool_use; never a call to
an undeclared tool. A constrained answer (a forced tool, output_config.format, messages.parse) is
always a value valid for its schema."""
from __future__ import annotations

import json
import typing

import anthropic
import pydantic
import pytest

from course.api import LocalAPI, Scripted, Turn, structured
from course.client import MODEL, make_client
from course.messages import text, tool_use, user
from course.scenarios import get

SEARCH = {"name": "search", "description": "Search.",
          "input_schema": {"type": "object", "properties": {}}}
TWO_CALLS = Turn([text("Looking both up."), tool_use("", "search", {"query": "Mara Voss"}),
                  tool_use("", "search", {"query": "Henrik Dahl"})])


def ask(tool_choice, tools=(SEARCH,)) -> anthropic.types.Message:
    client = make_client(LocalAPI(Scripted([], then=TWO_CALLS)), max_retries=0)
    return client.messages.create(model=MODEL, max_tokens=256,
                                  messages=[user("When were they born?")],
                                  tools=list(tools), tool_choice=tool_choice)


def test_auto_keeps_parallel_calls():
    reply = ask({"type": "auto"})
    assert [b.type for b in reply.content] == [
        "text",
        "tool_use",
        "tool_use",
    ] and reply.stop_reason == "tool_use"


def test_disable_parallel_tool_use_keeps_the_first_call():
    reply = ask({"type": "auto", "disable_parallel_tool_use": True})
    assert [b.input for b in reply.content if b.type == "tool_use"] == [{"query": "Mara Voss"}]
    assert reply.stop_reason == "tool_use"


def test_none_removes_the_calls_and_ends_the_turn():
    reply = ask({"type": "none"})
    assert [b.type for b in reply.content] == ["text"] and reply.stop_reason == "end_turn"


@pytest.mark.parametrize("choice, wording", [
    ({"type": "sometimes"},
     "tool_choice: Input tag 'sometimes' found using 'type' does not match any of the expected "
                           "tags: 'auto', 'any', 'tool', 'none'"),
    ({"type": "tool"}, "tool_choice.tool.name: Field required"),
    ({"type": "none", "disable_parallel_tool_use": True},
     "tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted"),
])
def test_malformed_tool_choice_is_a_400(choice, wording):
    with pytest.raises(anthropic.BadRequestError) as info:
        ask(choice)
    assert info.value.body["error"]["message"].startswith(wording)


def test_tool_choice_without_tools_is_a_400():
    with pytest.raises(anthropic.BadRequestError,
                       match="tool_choice may only be specified while providing tools"):
        ask({"type": "any"}, tools=())


YEAR = {"name": "Year", "description": "The year.", "input_schema": {
    "type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"]}}
AURORA = get("aurora_run")
FINAL_HISTORY = AURORA.run().messages[:-1]  # the Aurora Run conversation up to the answer "1974"


def test_any_obeys_the_request_on_both_mounts(mount):
    client = mount(AURORA.api(), max_retries=0)
    first = client.messages.create(model=MODEL, max_tokens=256, messages=[user(AURORA.prompt)],
                                   tools=[SEARCH, YEAR], tool_choice={"type": "any"})
    # the toy model's own call stays
    assert [(b.type, b.name) for b in first.content] == [("tool_use", "search")]
    last = client.messages.create(model=MODEL, max_tokens=256, messages=FINAL_HISTORY,
                                  tools=[SEARCH, YEAR], tool_choice={"type": "any"})
    assert [(b.type, b.name, b.input) for b in last.content] == [
        ("tool_use", "Year", {"year": 1974})
    ]
    assert last.stop_reason == "tool_use"


def test_a_forced_tool_gets_the_answer_fitted_to_its_schema_never_another_tool(mount):
    client = mount(AURORA.api(), max_retries=0)
    # the toy model would call search, which this request does not declare, and has no answer yet:
    # the smallest year
    first = client.messages.create(model=MODEL, max_tokens=256, messages=FINAL_HISTORY[:1],
                                   tools=[YEAR], tool_choice={"type": "tool", "name": "Year"})
    assert [(b.type, b.name, b.input) for b in first.content] == [("tool_use", "Year", {"year": 0})]
    last = client.messages.create(model=MODEL, max_tokens=256, messages=FINAL_HISTORY,
                                  tools=[SEARCH, YEAR],
                                  tool_choice={"type": "tool", "name": "Year"})
    assert [(b.type, b.name, b.input) for b in last.content] == [
        ("tool_use", "Year", {"year": 1974})
    ]


def test_a_call_to_an_undeclared_tool_is_never_made_the_toy_model_answers_in_text(
    mount, monkeypatch
):
    client = mount(AURORA.api(), max_retries=0)
    # the toy model would call search, which this request does not declare: a reply the real API
    # could send
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=[user(AURORA.prompt)],
                                   tools=[YEAR])
    assert [b.type for b in reply.content] == ["text"] and reply.stop_reason == "end_turn"
    assert reply.content[0].text == "I cannot do that here: none of my tools can search."
    monkeypatch.setenv("COURSE_LANG", "ja")  # the Japanese edition's toy model says it in Japanese
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=[user(AURORA.prompt)],
                                   tools=[YEAR])
    assert reply.content[0].text == "ここではできません: search ができるツールがありません。"


def test_an_answer_that_fills_no_field_gets_the_smallest_valid_value_never_a_500(mount):
    client = mount(LocalAPI(Scripted([], then=Turn([text("I do not know.")]))), max_retries=0)
    reply = client.messages.create(model=MODEL, max_tokens=256, messages=[user("When?")],
                                   tools=[YEAR], tool_choice={"type": "any"})
    assert [(b.name, b.input) for b in reply.content] == [("Year", {"year": 0})]


@pytest.mark.parametrize("schema, answer, fitted", [
    ({"properties": {"response": {"type": "integer"}}, "required": ["response"]}, "1974",
     {"response": 1974}),
    ({"properties": {"city": {"type": "string"}}, "required": ["city"]}, "Paris",
     {"city": "Paris"}),
    ({"properties": {"x": {"type": "number"}, "why": {"type": "string"}}, "required": ["x", "why"]},
     "about 2.5", {"x": 2.5, "why": "about 2.5"}),
    ({"properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}, "Yes.", {"ok": True}),
    ({"properties": {"n": {"type": "integer"}}, "required": ["n"]}, "none", None),
    ({"properties": {"items": {"type": "array"}}, "required": ["items"]}, "1, 2", None),
])
def test_fitting_an_answer_to_a_schema(schema, answer, fitted):
    assert structured.fitted({"type": "object", **schema}, answer) == fitted


GOAL = {"type": "object", "properties": {"ok": {"type": "boolean"}, "reason": {"type": "string"},
                                         "impossible": {"type": "boolean"}},
        "required": ["ok", "reason"]}
PARSED = {"$defs": {"Kind": {"enum": ["film", "novel"], "type": "string"}}, "type": "object",
          "properties": {
    "kind": {"$ref": "#/$defs/Kind"}, "year": {"type": "integer", "minimum": 1900},
    "names": {"type": "array", "items": {"type": "string", "minLength": 2}, "minItems": 1},
    "when": {"type": "string", "format": "date"}}, "required": ["kind", "year", "names", "when"],
    "additionalProperties": False}


@pytest.mark.parametrize("schema, answer, value", [
    # Claude Code's /goal evaluator
    (GOAL, "Yes, the tests pass.", {"ok": True, "reason": "Yes, the tests pass."}),
    (GOAL, "", {"ok": False, "reason": ""}),
    (PARSED, "A 1998 novel.",
     {"kind": "novel", "year": 1998, "names": ["xx"], "when": "1970-01-01"}),
    (PARSED, "No idea.", {"kind": "film", "year": 1900, "names": ["xx"], "when": "1970-01-01"}),
])
def test_every_schema_gets_a_valid_value_from_the_answer_where_it_can(schema, answer, value):
    assert structured.answer_for(schema, answer) == value and structured.valid(schema, value)


def test_structured_output_fits_the_answer_to_the_format_schema(mount):
    client = mount(AURORA.api(), max_retries=0)
    schema = {"type": "object", "properties": {"year": {"type": "integer"}}, "required": ["year"],
              "additionalProperties": False}
    fmt = {"output_config": {"format": {"type": "json_schema", "schema": schema}}}
    first = client.messages.create(model=MODEL, max_tokens=256, messages=FINAL_HISTORY[:1],
                                   tools=[SEARCH], extra_body=fmt)
    assert [b.type for b in first.content] == ["tool_use"]  # a call keeps no free text
    last = client.messages.create(model=MODEL, max_tokens=256, messages=FINAL_HISTORY,
                                  tools=[SEARCH], extra_body=fmt)
    assert [b.type for b in last.content] == ["text"] and json.loads(last.content[0].text) == {
        "year": 1974
    }


class Director(pydantic.BaseModel):
    name: str
    born: int
    film: typing.Literal["Aurora Run", "other"]


@pytest.mark.parametrize("history", [FINAL_HISTORY, FINAL_HISTORY[:1]], ids=["answered", "not_yet"])
def test_messages_parse_gets_a_valid_value_on_both_mounts(mount, history):
    client = mount(AURORA.api(), max_retries=0)
    reply = client.messages.parse(model=MODEL, max_tokens=256, messages=history,
                                  output_format=Director)
    assert isinstance(reply.parsed_output, Director)  # the SDK parsed and validated it
    if history is FINAL_HISTORY:  # the toy model's answer, 1974, where the schema takes a number
        assert reply.parsed_output.born == 1974


STRUCTURED_OUTPUT = {"name": "StructuredOutput",
                     "description": "Use this tool to return your final response in the "
                     "requested structured format.", "input_schema": YEAR["input_schema"]}


def test_with_claude_codes_structured_output_tool_the_final_answer_calls_it(mount):
    client = mount(AURORA.api(), max_retries=0)
    reply = client.messages.create(
        model=MODEL, max_tokens=256, messages=FINAL_HISTORY, tools=[SEARCH, STRUCTURED_OUTPUT]
    )
    assert [(b.type, getattr(b, "input", None)) for b in reply.content] == [
        ("text", None),
        ("tool_use", {"year": 1974}),
    ]
    assert reply.content[1].name == "StructuredOutput" and reply.stop_reason == "tool_use"
