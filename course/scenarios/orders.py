"""Order 42, for structured tool errors: a live lookup and an archive that fail as told, and a model
that routes on the error's category (retry it, skip to the other tool, or give up)."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..api import Conversation, Turn
from ..i18n import tr
from ..tools import Tool, Toolbox
from ..tools.errors import ToolError, action


def flaky(failures: list[ToolError], answer: str) -> Callable[..., str]:
    """A tool function that raises each of `failures` in turn, then returns `answer`."""
    pending = list(failures)

    def run(**input) -> str:
        if pending:
            raise pending.pop(0)
        return answer

    return run


def order_lookup(lookup_failures: list[ToolError],
                 archive_failures: Sequence[ToolError] = ()) -> Toolbox:
    """Two tools that find order 42: `lookup` (live orders) and `archive`, each failing as told
    first."""
    schema = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    return Toolbox([Tool("lookup", tr("Look up a live order."), schema,
                         flaky(list(lookup_failures), tr("order 42: shipped"))),
                    Tool("archive", tr("Search archived orders."), schema,
                         flaky(list(archive_failures), tr("order 42: archived, delivered")))])


def routing_policy(primary: str, fallback: str) -> Callable[[Conversation], Turn]:
    """A model that calls `primary`, retries it on a retryable error, switches to `fallback` on a
    skip, and answers with the first successful result."""

    def policy(c: Conversation) -> Turn:
        results = c.all_results()
        if not results:
            return Turn([{"type": "tool_use", "id": "", "name": primary,
                          "input": {"query": c.prompt}}])
        use, result = results[-1]
        content = c.result_text(result)
        if not result.get("is_error"):
            found = tr("From {tool}: {content}").format(tool=use["name"], content=content)
            return Turn([{"type": "text", "text": found}])
        step = action(content)
        name = use["name"] if step == "retry" else fallback
        if step == "abort" or (step == "skip" and use["name"] == fallback):
            return Turn([{"type": "text",
                          "text": tr("I could not get an answer: {error}").format(error=content)}])
        said = tr("{tool} failed ({step}); calling {other}.").format(
            tool=use["name"], step=step, other=name)
        return Turn([{"type": "text", "text": said},
                     {"type": "tool_use", "id": "", "name": name, "input": use["input"]}])

    return policy
