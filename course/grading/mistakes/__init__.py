"""Known mistakes: plausible wrong versions of the graded functions, one per file, each naming its mistake.

A file holds GRADE_ID, the function (named as the exercise's), and MISTAKE: the hint that names the mistake
(a `deferred` English sentence), or None when its behaviour is not one cause. The grader names a cause only
when, on the smallest case where a student's function differs from the reference, exactly one known mistake
does exactly what the student's function did; otherwise the feedback shows the difference and names nothing.
The tests hold them to it: each loses marks, and none is given a hint naming another.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
import threading
from dataclasses import dataclass
from collections.abc import Callable

MISTAKE_TIMEOUT = 3.0  # seconds one known mistake may take on one case (a loop with no cap ends by then)


@dataclass(frozen=True)
class Mistake:
    name: str  # the file's stem, e.g. l07_budget_before_call
    grade_id: str
    hint: str | None
    fn: Callable


@functools.cache
def known() -> dict[str, list[Mistake]]:
    """The known mistakes of each exercise, by grade_id, in file order."""
    from ..checks import EXERCISES

    functions = {e.grade_id: e.function for e in EXERCISES}
    found: dict[str, list[Mistake]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        fn = getattr(module, functions[module.GRADE_ID])
        found.setdefault(module.GRADE_ID, []).append(Mistake(info.name, module.GRADE_ID, module.MISTAKE, fn))
    return found


_outcomes: dict[tuple, object] = {}
_lock = threading.Lock()


def outcome(mistake: Mistake, rule, index: int, timeout: float = MISTAKE_TIMEOUT):
    """What a known mistake does on one case of a rule, once per process (a harness run once per machine)."""
    from ...i18n import language
    from ..oracle import trusted_call

    key = (language(), mistake.name, rule.name, index)  # in the submission's language, as the reference's
    with _lock:
        if key not in _outcomes:
            harness = timeout > MISTAKE_TIMEOUT  # the exercise's calls start a harness (the CLI)
            _outcomes[key] = trusted_call(mistake.fn, rule.all_cases()[index], timeout,
                                          saved_as=("mistake", *key) if harness else None)
        return _outcomes[key]


def hint(exercise, rule, index: int, mine) -> str:
    """The hint of the one known mistake that behaves exactly as the student's function on this case; ""
    when none does, or when several with different causes do."""
    from ..oracle import same

    timeout = max(MISTAKE_TIMEOUT, exercise.call_timeout)
    causes = {m.hint for m in known().get(exercise.grade_id, []) if same(rule, mine, outcome(m, rule, index, timeout))}
    return causes.pop() or "" if len(causes) == 1 else ""
