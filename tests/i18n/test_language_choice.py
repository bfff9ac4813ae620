"""Which language the course speaks: a speaking() block, else COURSE_LANG, else the locale as
gettext reads it (LANGUAGE, LC_ALL, LC_MESSAGES, LANG); anything it does not speak is English."""
from __future__ import annotations

import pytest

from course.i18n import language, speaking, tr


@pytest.mark.parametrize("env, spoken", [
    ({}, "en"),
    ({"LANG": "ja_JP.UTF-8"}, "ja"),
    ({"LANG": "C.UTF-8"}, "en"),
    ({"LANGUAGE": "ja:en", "LANG": "en_US.UTF-8"}, "ja"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "ja_JP.UTF-8"}, "en"),
    ({"LC_MESSAGES": "ja_JP", "LANG": "en_GB.UTF-8"}, "ja"),
    ({"COURSE_LANG": "en", "LANG": "ja_JP.UTF-8"}, "en"),
    ({"COURSE_LANG": "ja", "LANG": "C"}, "ja"),
    ({"COURSE_LANG": "fr"}, "en"),
])
def test_the_language_comes_from_course_lang_else_the_locale(monkeypatch, speak, env, spoken):
    speak(None)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    assert language() == spoken


def test_a_speaking_block_wins_over_the_environment_and_ends_with_the_block(monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    with speaking("ja"):
        assert language() == "ja"
        assert tr("why:  {reason}") == "理由：{reason}"
    assert language() == "en" and tr("why:  {reason}") == "why:  {reason}"
    with pytest.raises(ValueError, match="the course speaks en, ja"), speaking("fr"):
        pass


def test_an_empty_sentence_stays_empty_in_every_language():
    # gettext maps "" to the catalogue's header; no hint must not become a header
    with speaking("ja"):
        assert tr("") == ""
