"""A session wrapped around any client: what the goal loop, the outer loop and lesson 13 give the
student's loop.

The student's `agent_loop` always starts a conversation from its prompt. Given a `Session(client,
earlier)` as its client, it continues `earlier` instead; given `Session(client)`, it starts fresh.
Either way the session keeps every response, for counting calls and pricing them.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .pricing import cost_usd


class Metered:
    """Anything that keeps the model's `responses`: how many calls they were and what they cost."""

    responses: list

    @property
    def calls(self) -> int:
        return len(self.responses)

    @property
    def cost_usd(self) -> float:
        return spent(self.responses)


@dataclass
class Session(Metered):
    """A client that sends `earlier` in front of the messages of every request, and keeps each
    response."""

    client: object
    earlier: list = field(default_factory=list)
    responses: list = field(default_factory=list)  # every response, in order

    @property
    def messages(self) -> Session:
        return self

    def create(self, **request):
        response = self.client.messages.create(**{**request,
                                                  "messages": self.earlier + request["messages"]})
        self.responses.append(response)
        return response

    @property
    def usages(self) -> list[dict]:
        """Each response's `usage`, as a dict."""
        return [r.usage.model_dump() for r in self.responses]

def spent(responses: list) -> float:
    """USD for these responses, each priced by the model it names."""
    return sum(cost_usd(r.model, r.usage) for r in responses)
