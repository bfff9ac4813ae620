"""Structured tool errors: a category and a retry hint the model can route on.

A tool raises `ToolError(category, message)`; the Toolbox turns it into an
is_error result whose content carries `errorCategory` and `isRetryable`. The
three responses to a failure (retry, skip, abort) follow from the category.
`order_lookup` and `routing_policy` are the lesson's toy tools and toy model.
"""
from __future__ import annotations

import json
import re
from typing import Callable

from ..api import Conversation, Turn
from ..i18n import tr
from .toolbox import Tool, Toolbox

# category -> (retryable by default, what the loop does about it)
CATEGORIES = {
    "transient": (True, "retry"),  # a timeout, a rate limit: the same call may work in a moment
    "business": (False, "skip"),  # this request cannot be met (no such order); another approach may work
    "permission": (False, "skip"),  # not allowed for this resource; ask for something else or report it
    "internal": (False, "abort"),  # the tool itself is broken (credentials revoked, backend down): stop the loop
}


class ToolError(Exception):
    """A failure with a category; str() is the JSON the model reads."""

    def __init__(self, category: str, message: str, retryable: bool | None = None):
        if category not in CATEGORIES:
            raise ValueError(f"unknown error category {category!r}; use one of {', '.join(CATEGORIES)}")
        super().__init__(message)
        self.category = category
        self.message = message
        self.retryable = CATEGORIES[category][0] if retryable is None else retryable

    def __str__(self) -> str:
        return json.dumps({"errorCategory": self.category, "isRetryable": self.retryable, "message": self.message},
                          ensure_ascii=False)  # a Japanese message reads as itself


def parse(content: str) -> dict | None:
    """The structured error inside a result's content, or None for a plain one."""
    found = re.search(r"\{.*\"errorCategory\".*\}", content)
    return json.loads(found.group(0)) if found else None


def action(content: str) -> str:
    """retry, skip or abort for an error result's content; a plain, unstructured error is skipped."""
    error = parse(content)
    if error is None:
        return "skip"
    if error["isRetryable"]:
        return "retry"
    return CATEGORIES[error["errorCategory"]][1]


def flaky(failures: list[ToolError], answer: str) -> Callable[..., str]:
    """A tool function that raises each of `failures` in turn, then returns `answer`."""
    pending = list(failures)

    def run(**input) -> str:
        if pending:
            raise pending.pop(0)
        return answer

    return run


def order_lookup(lookup_failures: list[ToolError], archive_failures: list[ToolError] = ()) -> Toolbox:
    """Two tools that find order 42: `lookup` (live orders) and `archive`, each failing as told first."""
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    return Toolbox([Tool("lookup", tr("Look up a live order."), schema,
                         flaky(list(lookup_failures), tr("order 42: shipped"))),
                    Tool("archive", tr("Search archived orders."), schema,
                         flaky(list(archive_failures), tr("order 42: archived, delivered")))])


def routing_policy(primary: str, fallback: str) -> Callable[[Conversation], Turn]:
    """A model that calls `primary`, retries it on a retryable error, switches to `fallback` on a skip,
    and answers with the first successful result."""

    def policy(c: Conversation) -> Turn:
        results = c.all_results()
        if not results:
            return Turn([{"type": "tool_use", "id": "", "name": primary, "input": {"query": c.prompt}}])
        use, result = results[-1]
        content = c.result_text(result)
        if not result.get("is_error"):
            found = tr("From {tool}: {content}").format(tool=use["name"], content=content)
            return Turn([{"type": "text", "text": found}])
        step = action(content)
        name = use["name"] if step == "retry" else fallback
        if step == "abort" or (step == "skip" and use["name"] == fallback):
            return Turn([{"type": "text", "text": tr("I could not get an answer: {error}").format(error=content)}])
        said = tr("{tool} failed ({step}); calling {other}.").format(tool=use["name"], step=step, other=name)
        return Turn([{"type": "text", "text": said},
                     {"type": "tool_use", "id": "", "name": name, "input": use["input"]}])

    return policy
