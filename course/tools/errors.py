"""Structured tool errors: a category and a retry hint the model can route on.

A tool raises `ToolError(category, message)`; the Toolbox turns it into an
is_error result whose content carries `errorCategory` and `isRetryable`. The
three responses to a failure (retry, skip, abort) follow from the category.
The lesson's toy tools and toy model are a scenario: `course.scenarios.orders`.
"""
from __future__ import annotations

import json
import re

# category -> (retryable by default, what the loop does about it)
CATEGORIES = {
    "transient": (True, "retry"),  # a timeout, a rate limit: the same call may work in a moment
    # this request cannot be met (no such order); another approach may work
    "business": (False, "skip"),
    # not allowed for this resource; ask for something else or report it
    "permission": (False, "skip"),
    # the tool itself is broken (credentials revoked, backend down): stop the loop
    "internal": (False, "abort"),
}


class ToolError(Exception):
    """A failure with a category; str() is the JSON the model reads."""

    def __init__(self, category: str, message: str, retryable: bool | None = None):
        if category not in CATEGORIES:
            raise ValueError(f"unknown error category {category!r}; use one of "
                             f"{', '.join(CATEGORIES)}")
        super().__init__(message)
        self.category = category
        self.message = message
        self.retryable = CATEGORIES[category][0] if retryable is None else retryable

    def __str__(self) -> str:
        return json.dumps({"errorCategory": self.category, "isRetryable": self.retryable,
                           "message": self.message},
                          ensure_ascii=False)  # a Japanese message reads as itself


def parse(content: str) -> dict | None:
    """The structured error inside a result's content, or None for a plain one."""
    found = re.search(r"\{.*\"errorCategory\".*\}", content)
    return json.loads(found.group(0)) if found else None


def action(content: str) -> str:
    """retry, skip or abort for an error result's content; a plain, unstructured error is
    skipped."""
    error = parse(content)
    if error is None:
        return "skip"
    if error["isRetryable"]:
        return "retry"
    return CATEGORIES[error["errorCategory"]][1]

