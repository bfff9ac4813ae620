"""The gate g of Def. 3.1: permission rules that decide allow / deny / ask per call.

Rules are written as in Claude Code: `Tool` matches every call of the tool,
`Tool(spec)` matches when the call's main argument matches the glob `spec`,
e.g. `write_file(/etc/*)` or `run_python(test_*.py)`. deny beats ask beats
allow; a call no rule matches gets the gate's default.
"""
from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from .i18n import deferred, tr

RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_*-]+)(?:\((?P<spec>.*)\))?$")
ACTIONS = ("deny", "ask", "allow")  # in order of precedence
# how every refusal of the gate begins, in every language (a toy model reads it)
DENIED = deferred("Permission denied")
# the refusal of a pre-tool hook (the loop gives it)
BLOCKED = deferred("Blocked by a hook: {reason}")
# what a spec is about, when the call has one
MAIN_KEYS = ("path", "file_path", "command", "url", "to", "query")


@dataclass(frozen=True)
class Decision:
    action: str  # "allow" | "deny" | "ask"
    rule: str | None  # the rule that decided, or None for the default

    @property
    def reason(self) -> str:
        if self.rule:
            return tr("Permission denied by rule {action} {rule}").format(
                action=self.action, rule=self.rule)
        return tr("Permission denied by the default ({action})").format(action=self.action)


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
    """The values a spec is matched against: the call's main arguments (path, command, ...) if it
    has any, else every string argument. Paths are also matched normalised, so `/etc/../etc/x` is
    `/etc/x`."""
    if not isinstance(input, dict):
        return []
    main = [input[k] for k in MAIN_KEYS if isinstance(input.get(k), str)]
    values = main or [v for v in input.values() if isinstance(v, str)]
    return values + [normal(v) for v in values if v and normal(v) != v]


def normal(path: str) -> str:
    """A path without `.`, `..` or repeated slashes (`//etc/./x` -> `/etc/x`)."""
    return posixpath.normpath(re.sub(r"^/+", "/", path))


@dataclass
class Gate:
    """allow / deny / ask rule lists; `approver` is the human (or code) consulted when an ask rule
    matches."""

    allow: list[str] = field(default_factory=list)
    deny: list[str] = field(default_factory=list)
    ask: list[str] = field(default_factory=list)
    default: str = "allow"
    # answers "ask"; without one, ask means deny
    approver: Callable[[str, dict], bool] | None = None

    def __post_init__(self):
        if self.default not in ACTIONS:
            raise ValueError(f"default must be one of {ACTIONS}, not {self.default!r}")
        for rule in self.allow + self.deny + self.ask:
            matches(rule, "", {})  # a malformed rule fails here, not in the middle of a run

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
            return False, tr("Permission denied: a human refused {name} (rule ask {rule})").format(
                name=name, rule=d.rule)
        if d.action == "ask":
            return False, tr("Permission denied: {name} needs approval (rule ask {rule}) and "
                             "nobody approved it").format(name=name, rule=d.rule)
        return False, d.reason


