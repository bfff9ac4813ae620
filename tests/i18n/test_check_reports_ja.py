"""Check reports speak Japanese with COURSE_LANG=ja and English without it: for every known mistake the same checks
fail (by grade_id, in order) with the same marks, and each why and hint is Japanese (identifiers, values and code
stay as they are). tests/i18n/test_late_lesson_reports_ja.py holds whole sentences in both languages."""
from __future__ import annotations

from pathlib import Path

import pytest

from course.grading import registry
from course.grading.mark import run_exercise
from course.grading.notebook_context import NotebookContext
from course.editions.translation import JAPANESE  # a kana or kanji

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = registry.shipped()
MISTAKES = sorted(p for p in (ROOT / "course" / "grading" / "mistakes").glob("l[01][0-9]_*.py"))




def failures(stem: str) -> list:
    """The Marks of the checks that a wrong solution of course/grading/mistakes/ fails."""
    meta: dict = {}
    path = ROOT / "course" / "grading" / "mistakes" / f"{stem}.py"
    exec(compile(path.read_text(), str(path), "exec"), meta)
    exercise = REGISTRY.exercise(meta["GRADE_ID"])
    return [m for m in run_exercise(exercise, NotebookContext(meta[exercise.function], REGISTRY)) if not m.passed]


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_every_why_and_hint_of_every_lesson_is_japanese(path, speak):
    speak(None)
    english = failures(path.stem)
    speak("ja")
    japanese = failures(path.stem)
    assert [(m.name.split(": ")[0], m.score) for m in japanese] == [(m.name.split(": ")[0], m.score) for m in english]
    for en, ja in zip(english, japanese, strict=True):
        assert JAPANESE.search(ja.reason), f"{en.name}: the why is not Japanese: {ja.reason}"
        assert bool(ja.hint) == bool(en.hint) and (not ja.hint or JAPANESE.search(ja.hint)), \
            f"{en.name}: the hint {en.hint!r} is {ja.hint!r} in Japanese"
