"""Outcomes of harness calls (the Claude Code CLI, seconds each) kept on disk, shared by every
process on a machine.

The reference's and the known mistakes' runs of a harness exercise are the same in every process
that grades it: with COURSE_SAVED_OUTCOMES set to a folder (make test sets it), each is run once, by
whichever process asks first, while the others wait for it. A saved outcome is named by its key and
by a fingerprint of everything that could change it: the course's code and data, the reference
solutions, the engines' versions. Only an outcome that finished without an error is saved: a call
that timed out on a loaded machine is never kept as the oracle.
"""
from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import hashlib
import importlib.metadata
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import course

from ...contract.exercise import Outcome
from . import reference

ENGINES = ("anthropic", "claude-agent-sdk")  # the SDK and the CLI it bundles


def folder() -> Path | None:
    """Where outcomes are saved, or None: only when asked for (the grader's trusted side; never a
    worker)."""
    named = os.environ.get("COURSE_SAVED_OUTCOMES")
    return Path(named) if named else None


@functools.cache
def fingerprint() -> str:
    """A digest of the course package, the reference solutions and the engines' versions."""
    digest = hashlib.sha256()
    for root in (Path(course.__file__).parent, reference.SOLUTIONS):
        for path in sorted(p for p in root.rglob("*") if p.is_file()
                           and "__pycache__" not in p.parts):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    for engine in ENGINES:
        digest.update(f"{engine}=={importlib.metadata.version(engine)}\0".encode())
    return digest.hexdigest()


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock named after `path`: the first process runs the call, the others wait
    for its file."""
    with open(path.with_suffix(".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def identity(case) -> list:
    """What a case calls the function with, as data: the same in every process (a scenario by its
    name)."""
    return [case.args, case.kwargs, getattr(case.scenario, "name", case.scenario)]


def saved(who: tuple, case, compute: Callable[[], Outcome]) -> Outcome:
    """The outcome of `who` (plain data: whose function, in which language) on `case` saved for this
    fingerprint, or compute() (saved when it finished without an error)."""
    where = folder()
    if where is None:
        return compute()
    where.mkdir(parents=True, exist_ok=True)
    key = json.dumps([fingerprint(), *who, identity(case)], sort_keys=True, default=repr)
    name = hashlib.sha256(key.encode()).hexdigest()[:32]
    path = where / f"{name}.json"
    with locked(path):
        if path.exists():
            data = json.loads(path.read_text())
            return Outcome(**{**data, "tool_calls": [tuple(call) for call in data["tool_calls"]]})
        outcome = compute()
        if outcome.error is None:
            with tempfile.NamedTemporaryFile("w", dir=where, delete=False, suffix=".part") as part:
                json.dump(dataclasses.asdict(outcome), part)
            os.replace(part.name, path)
        return outcome
