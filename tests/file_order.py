"""The order make test's two workers take the test files in (tests/conftest.py sorts the collected tests by it)."""
from __future__ import annotations

import json
from pathlib import Path

# make test's two workers each take a whole test file at a time, in collection order (--dist loadfile
# --no-loadscope-reorder): the longest files go first, so that neither worker is left alone with a long file at the
# end while the other core idles. How long a file takes is what it took in the last such run on this machine
# (SECONDS); before any (a fresh clone), the files below: those of the slowest tests and fixtures in make test's last
# --durations (the CLI's exercises, the mutants, the Japanese class, exercise 14's class) and lesson 14 run elsewhere.
SECONDS = Path(__file__).resolve().parents[1] / "build" / "test-seconds.json"
LONGEST = ("tests/grading/test_exercises.py", "tests/grading/test_mutation.py",
           "tests/i18n/test_japanese_editions_graded.py", "tests/test_lesson_14_elsewhere.py",
           "tests/grading/test_agent_sdk_grading.py")


def took() -> dict[str, float]:
    try:
        return json.loads(SECONDS.read_text())
    except (OSError, ValueError):
        return {}


def longest_first(seconds: dict[str, float]):
    """The sort key of a test item: its file's seconds in the last run, longest first (a file not in it first of
    all: it may be long), or before any run LONGEST's order, then the others as collected."""
    if seconds:
        return lambda item: -seconds.get(item.nodeid.split("::")[0], float("inf"))
    return lambda item: LONGEST.index(path) if (path := item.nodeid.split("::")[0]) in LONGEST else len(LONGEST)
