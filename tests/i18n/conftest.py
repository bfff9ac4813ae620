"""What the language tests share: choosing the language the course speaks, as a student would."""
import pytest

# what course.i18n.language() reads
LOCALE = ("COURSE_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def speak(monkeypatch):
    """speak("ja") sets COURSE_LANG=ja; speak(None) leaves no language setting at all (English)."""
    def choose(lang: str | None) -> None:
        for var in LOCALE:
            monkeypatch.delenv(var, raising=False)
        if lang:
            monkeypatch.setenv("COURSE_LANG", lang)
    return choose


@pytest.fixture(params=["en", "ja"])
def lang(request, speak):
    """Each test twice: COURSE_LANG=ja, and nothing set (a C locale speaks English)."""
    speak("ja" if request.param == "ja" else None)
    return request.param
