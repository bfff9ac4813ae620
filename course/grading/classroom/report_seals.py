"""The seals: which reports in an output folder the grader itself wrote, for which submission, from
what.

A resumed batch keeps a report only when DIR/.seals.json holds its signature: an HMAC, with a
key only the grader's user can read (~/.cache/course/grader.key, hidden from confined workers), over
the notebook's bytes, the report's, and a digest of everything else the report was made from
(made_from: the grader's code and shipped checks, the hidden checks of --tests, the reference
solutions, the limits). A report a student rewrote, one written for an older notebook, or one made
with other checks, another reference or other limits fails the check and is graded again. After a
batch whose workers could read the key (isolation "none") the key is replaced, so nothing that batch
wrote is trusted later.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from ..judging.saved_outcomes import fingerprint
from ..marks.printable import name_bytes
from ..marks.report import read_valid, write_atomic

if TYPE_CHECKING:
    from ..judging.registry import Registry
    from .budget import Budget
    from .submission import Submission

KEY = Path("~/.cache/course/grader.key")


def key(fresh: bool = False) -> bytes:
    path = KEY.expanduser()
    if not fresh and path.is_file():
        return path.read_bytes()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(secrets.token_bytes(32))
    os.replace(tmp, path)
    return path.read_bytes()


def made_from(tests_dir: str | Path | None, registry: Registry | None, budget: Budget,
              mode: str) -> str:
    """A digest of all a report is made from but its notebook: the course package (the grader, its
    shipped checks, the API and scenarios its calls meet), the hidden checks in `tests_dir`, the
    reference solutions, a registry given from Python (its exercises and checks by name and points),
    the limits and the isolation mode."""
    # package, solutions, engines
    digest = hashlib.sha256(f"{budget!r}\n{mode}\n{fingerprint()}\n".encode())
    if registry is not None:
        digest.update(repr([(e.grade_id, e.function, e.notebook,
                             [(c.name, c.points, c.hidden) for c in e.checks])
                            for e in registry.exercises.values()]).encode())
    for path in sorted(Path(tests_dir).glob("*.py")) if tests_dir else []:
        digest.update(f"{path.name}\n{path.stat().st_size}\n".encode() + path.read_bytes())
    return digest.hexdigest()


class ReportSeals:
    def __init__(self, out: Path, basis: str = ""):
        """The seals of `out`, for reports made from `basis` (made_from's digest)."""
        self.path = out / ".seals.json"
        self.basis = basis
        self.key = key()
        try:
            entries = json.loads(self.path.read_text())
        except (OSError, ValueError):
            entries = {}
        self.entries: dict[str, str] = entries if isinstance(entries, dict) else {}

    def signature(self, name: str, notebook: Submission, report: bytes) -> str:
        digest = notebook.digest + hashlib.sha256(report).hexdigest() + self.basis
        return hmac.new(
            self.key, name_bytes(name) + f"\n{digest}".encode(), hashlib.sha256
        ).hexdigest()

    def trusted(self, name: str, notebook: Submission, report: Path) -> dict | None:
        """The report at `report` if the grader wrote it for this notebook as it was read; else
        None."""
        try:
            signature = self.signature(name, notebook, report.read_bytes())
        except OSError:
            return None
        return (
            read_valid(report)
            if hmac.compare_digest(self.entries.get(name, ""), signature)
            else None
        )

    def record(self, name: str, notebook: Submission, report: Path) -> None:
        try:
            self.entries[name] = self.signature(name, notebook, report.read_bytes())
        except OSError:  # the report vanished: it is never kept
            self.entries.pop(name, None)

    def save(self) -> None:
        write_atomic(self.path, json.dumps(self.entries, indent=1, sort_keys=True) + "\n")

    def forget(self) -> None:
        """Trust nothing signed so far: a new key."""
        self.key = key(fresh=True)
