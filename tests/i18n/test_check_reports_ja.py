"""Check reports speak Japanese with COURSE_LANG=ja and English without it: for every known mistake the same checks
fail (by grade_id, in order) with the same marks, and each why and hint is Japanese (identifiers, values and code
stay as they are). tests/i18n/test_late_lesson_reports_ja.py holds whole sentences in both languages."""
from __future__ import annotations

import pytest

from course.editions.translation import JAPANESE  # a kana or kanji
from known_mistakes import PATHS, marks  # tests/


def failures(path, lang: str) -> list:
    """The Marks of the checks that a wrong solution of course/grading/mistakes/ fails, in `lang`."""
    return [m for m in marks(path, lang)[1] if not m.passed]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_why_and_hint_of_every_lesson_is_japanese(path):
    english, japanese = failures(path, "en"), failures(path, "ja")
    assert [(m.name.split(": ")[0], m.score) for m in japanese] == [(m.name.split(": ")[0], m.score) for m in english]
    for en, ja in zip(english, japanese, strict=True):
        assert JAPANESE.search(ja.reason), f"{en.name}: the why is not Japanese: {ja.reason}"
        assert bool(ja.hint) == bool(en.hint) and (not ja.hint or JAPANESE.search(ja.hint)), \
            f"{en.name}: the hint {en.hint!r} is {ja.hint!r} in Japanese"
