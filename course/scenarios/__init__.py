"""The material's worked examples as runnable scenarios, by name."""
from .base import Scenario, call, say
from .search import ALWAYS_TOOL, AURORA, ONE_SHOT

SCENARIOS: dict[str, Scenario] = {s.name: s for s in [AURORA, ONE_SHOT, ALWAYS_TOOL]}


def get(name: str) -> Scenario:
    if name not in SCENARIOS:
        raise KeyError(f"unknown scenario {name!r}; valid names: {', '.join(sorted(SCENARIOS))}")
    return SCENARIOS[name]


__all__ = ["SCENARIOS", "Scenario", "call", "get", "say"]
