"""The material's worked examples as runnable scenarios, by name: `get(name)`, `SCENARIOS`."""
from .base import Scenario, call, say
from .coding import BROKEN_FUNCTIONS, CONFLICTING_EDITS, FIX_FAILING_TEST, GATED_WRITE
from .errors import UNKNOWN_TOOL
from .harness import COUNT_PYTHON_FILES, FIX_CART_IN_THREE_TURNS
from .outbox import OUTBOX
from .reads import LARGE_RESULT, PARALLEL_READS
from .search import ALWAYS_TOOL, AURORA, ONE_SHOT, THINKING
from .stop_reasons import PAUSE_TURN, REFUSAL, TRUNCATED

SCENARIOS: dict[str, Scenario] = {s.name: s for s in [
    AURORA, ONE_SHOT, ALWAYS_TOOL, FIX_FAILING_TEST, BROKEN_FUNCTIONS, PARALLEL_READS,
    CONFLICTING_EDITS, OUTBOX,
    LARGE_RESULT, TRUNCATED, REFUSAL, PAUSE_TURN, UNKNOWN_TOOL, GATED_WRITE, THINKING]}
# worked examples a real harness runs with its own tools (Claude Code's, a lone bash) as well as the
# course's
HARNESS: dict[str, Scenario] = {s.name: s for s in [COUNT_PYTHON_FILES, FIX_CART_IN_THREE_TURNS]}


def get(name: str) -> Scenario:
    """A scenario of SCENARIOS or HARNESS by name."""
    found = {**SCENARIOS, **HARNESS}
    if name not in found:
        raise KeyError(f"unknown scenario {name!r}; valid names: {', '.join(sorted(found))}")
    return found[name]


__all__ = ["HARNESS", "SCENARIOS", "Scenario", "call", "get", "say"]
