"""The order make test's two workers take the test files in (tests/conftest.py sorts the collected
tests by it)."""
from __future__ import annotations

import json
from pathlib import Path

# make test's two workers each take a whole test file at a time, in collection order (--dist
# loadfile --no-loadscope-reorder): the longest files go first, so that neither worker is left alone
# with a long file at the end while the other core idles. How long a file takes is what it took in
# the last such run on this machine (SECONDS); before any (a fresh clone), what it took in a fresh
# clone's make test, committed (COMMITTED: copy SECONDS over it after a make test when the files'
# lengths have changed much).
SECONDS = Path(__file__).resolve().parents[1] / "build" / "test-seconds.json"
COMMITTED = Path(__file__).resolve().parent / "test-seconds.json"


def took() -> dict[str, float]:
    for path in (SECONDS, COMMITTED):
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            continue
    return {}


def longest_first(seconds: dict[str, float]):
    """The sort key of a test item: its file's seconds in the last run, longest first (a file not in
    it first of all: it may be long), then the others as collected."""
    return lambda item: -seconds.get(item.nodeid.split("::")[0], float("inf"))
