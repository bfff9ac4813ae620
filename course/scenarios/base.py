"""A scenario is a worked example of the material: a policy (the toy model), its
tools, a prompt, and a fresh environment for every run."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..api import Conversation, LocalAPI, Turn
from ..client import MODEL, local_client
from ..loop import Agent, Limits
from ..tools import Toolbox


@dataclass
class Scenario:
    name: str
    title: str
    prompt: str
    policy: Callable[[Conversation], Turn]
    make_tools: Callable[[], Toolbox] = Toolbox  # a fresh environment per run
    system: str | None = None
    notes: str = ""  # what the scenario teaches, one line
    options: dict = field(default_factory=dict)  # LocalAPI options (e.g. context_window)

    def api(self, **options) -> LocalAPI:
        return LocalAPI(self.policy, **{**self.options, **options})

    def agent(self, *, limits: Limits | None = None, api: LocalAPI | None = None, **options) -> Agent:
        """An Agent on a fresh local API and fresh tools for this scenario."""
        client = local_client(api or self.api())
        return Agent(client, MODEL, self.make_tools(), limits=limits or Limits(), system=self.system, **options)

    def run(self, **options):
        return self.agent(**options).run(self.prompt)


def say(*blocks: dict | str, stop_reason: str | None = None) -> Turn:
    """A Turn from text strings and block dicts."""
    return Turn([{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks], stop_reason)


def call(name: str, **input) -> dict:
    """A tool_use block without an id (the API assigns one)."""
    return {"type": "tool_use", "id": "", "name": name, "input": input}
