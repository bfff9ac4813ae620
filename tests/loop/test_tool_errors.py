"""Structured tool errors: the content the model reads, and retry / skip / abort."""
import json

import pytest

from course.client import MODEL, make_client
from course.loop import Agent
from course.scenarios.orders import order_lookup, routing_policy
from course.tools.errors import CATEGORIES, ToolError, action, parse


def test_the_content_carries_category_and_retry_hint():
    content, is_error = order_lookup([ToolError("business", "no such order")]).run(
        "lookup", {"query": "42"})
    assert is_error
    assert parse(content) == {"errorCategory": "business", "isRetryable": False,
                              "message": "no such order"}


@pytest.mark.parametrize("category", list(CATEGORIES))
def test_each_category_maps_to_its_response(category):
    retryable, response = CATEGORIES[category]
    assert action(str(ToolError(category, "x"))) == ("retry" if retryable else response)


def test_an_explicit_hint_overrides_the_default():
    assert json.loads(str(ToolError("internal", "x", retryable=True)))["isRetryable"] is True
    assert action(str(ToolError("internal", "x", retryable=True))) == "retry"


def test_plain_errors_are_skipped_and_unknown_categories_refused():
    assert parse("Error: FileNotFoundError: x") is None
    assert action("Error: FileNotFoundError: x") == "skip"
    with pytest.raises(ValueError, match="unknown error category"):
        ToolError("fatal", "x")


def tool_names(result):
    return [b["name"] for m in result.messages if m["role"] == "assistant"
            for b in m["content"] if b["type"] == "tool_use"]


@pytest.mark.parametrize("failure, names, answer", [
    (ToolError("transient", "timeout"), ["lookup", "lookup"], "From lookup: order 42: shipped"),
    (ToolError("business", "not live"), ["lookup", "archive"],
     "From archive: order 42: archived, delivered"),
])
def test_the_routing_model_retries_or_skips(failure, names, answer):
    result = Agent(
        make_client(routing_policy("lookup", "archive")), MODEL, order_lookup([failure])
    ).run("order 42")
    assert (result.subtype, tool_names(result), result.text) == ("success", names, answer)


def test_the_routing_model_gives_up_on_abort():
    result = Agent(make_client(routing_policy("lookup", "archive")), MODEL,
                   order_lookup([ToolError("internal", "credentials revoked")])).run("order 42")
    assert tool_names(result) == ["lookup"]
    assert result.text.startswith("I could not get an answer")
