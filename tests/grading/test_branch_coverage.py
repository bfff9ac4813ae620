"""Cases chosen by coverage: every line and branch of each graded function's reference is reached by
its exercise's cases (branch_coverage.py measures it with coverage.py), but those listed in
UNREACHABLE with the reason no case can reach them. Exercise 14's runs start the Claude Code CLI
(slow)."""
from __future__ import annotations

import pytest

# tests/grading/, on sys.path as pytest imports this file
from branch_coverage import UNREACHABLE, unreached

from course.grading.judging import registry

EXERCISES = [e for e in registry.shipped().exercises.values() if e.rules]


@pytest.mark.parametrize("exercise",
                         [pytest.param(e, marks=pytest.mark.slow) if e.call_timeout else e
                                      for e in EXERCISES], ids=lambda e: e.grade_id)
def test_every_branch_of_the_reference_is_reached_by_the_cases(exercise):
    missed = unreached(exercise)
    unexplained = [words for key, words in missed.items() if key not in UNREACHABLE]
    assert unexplained == [], (f"{exercise.grade_id}: no case reaches these; add one that does: "
                               f"{unexplained}")
    reached = [key for key in UNREACHABLE if key[0] == exercise.grade_id and key not in missed]
    assert reached == [], (f"{exercise.grade_id}: listed as unreachable, but a case reaches them: "
                           f"{reached}")


def test_every_unreachable_branch_is_of_a_graded_function():
    assert {key[0] for key in UNREACHABLE} <= {e.grade_id for e in EXERCISES}
