"""What the checks share: scenarios for functions that run tools and never call the model."""
from __future__ import annotations

from ....api import Conversation, Turn
from ....scenarios import Scenario, say


def no_model(c: Conversation) -> Turn:
    return say("This scenario only runs tools.")


def tools_only(name: str, title: str, make_tools) -> Scenario:
    """A scenario for functions that run tools themselves and never call the model."""
    return Scenario(name, title, "", no_model, make_tools)
