"""The gate g of Def. 3.1: permission rules that decide allow / deny / ask per call.

Rules are written as in Claude Code: `Tool` matches every call of the tool,
`Tool(spec)` matches when the call's main argument matches the glob `spec`,
e.g. `write_file(/etc/*)` or `run_python(test_*.py)`. deny beats ask beats
allow; a call no rule matches gets the gate's default.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from typing import Callable

RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_*-]+)(?:\((?P<spec>.*)\))?$")
ACTIONS = ("deny", "ask", "allow")  # in order of precedence


@dataclass(frozen=True)
class Decision:
    action: str  # "allow" | "deny" | "ask"
    rule: str | None  # the rule that decided, or None for the default

    @property
    def reason(self) -> str:
        by = f"rule {self.action} {self.rule}" if self.rule else f"the default ({self.action})"
        return f"Permission denied by {by}"


def matches(rule: str, name: str, input: dict) -> bool:
    m = RULE.match(rule.strip())
    if not m:
        raise ValueError(f"bad permission rule {rule!r}; write Tool or Tool(pattern)")
    if not fnmatch.fnmatchcase(name, m["tool"]):
        return False
    spec = m["spec"]
    if spec is None:
        return True
    return any(isinstance(v, str) and fnmatch.fnmatchcase(v, spec) for v in main_arguments(input))


def main_arguments(input: dict) -> list[str]:
    """The values a spec is matched against: every string argument of the call."""
    return [v for v in input.values() if isinstance(v, str)] if isinstance(input, dict) else []


@dataclass
class Gate:
    """allow / deny / ask rule lists; `ask` is the human (or code) consulted for ask rules."""

    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    default: str = "allow"
    approver: Callable[[str, dict], bool] | None = None  # answers "ask"; without one, ask means deny

    def decide(self, name: str, input: dict) -> Decision:
        for action in ACTIONS:
            for rule in getattr(self, action):
                if matches(rule, name, input):
                    return Decision(action, rule)
        return Decision(self.default, None)

    def permits(self, name: str, input: dict) -> tuple[bool, str]:
        """(run it?, the reason given to the model when not)."""
        d = self.decide(name, input)
        if d.action == "allow":
            return True, ""
        if d.action == "ask" and self.approver is not None:
            if self.approver(name, input):
                return True, ""
            return False, f"Permission denied: a human refused {name} (rule ask {d.rule})"
        if d.action == "ask":
            return False, f"Permission denied: {name} needs approval (rule ask {d.rule}) and nobody approved it"
        return False, d.reason


