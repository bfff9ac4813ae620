"""The language the course speaks to students: English, or Japanese with COURSE_LANG=ja (or a ja
locale).

Library code marks every sentence a student reads with `tr("...")` (named fields, `str.format`), or
with `deferred("...")` where the sentence is a module constant translated later by `tr(constant)`.
The catalogues are standard gettext: course/locale/<lang>/LC_MESSAGES/course.po, compiled to
course.mo by `python -m course translate`. Identifiers, API fields, stop reasons and code stay in
English.
"""
from __future__ import annotations

import contextvars
import gettext
import os
from contextlib import contextmanager
from functools import cache
from pathlib import Path

LOCALES = Path(__file__).parent / "locale"
DOMAIN = "course"
LANGUAGES = ("en", "ja")
# what the extractor looks for (Babel's form)
KEYWORDS = {"tr": None, "tr_plural": (1, 2), "deferred": None}

_speaking: contextvars.ContextVar[str | None] = contextvars.ContextVar("speaking", default=None)


def language() -> str:
    """"ja" or "en": a `speaking(...)` block, else COURSE_LANG, else the locale (LANGUAGE, LC_ALL,
    LC_MESSAGES, LANG, as gettext reads them); anything else is English."""
    chosen = _speaking.get() or os.environ.get("COURSE_LANG") or next(
        (os.environ[var] for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
         if os.environ.get(var)), "en")
    code = chosen.split(":")[0].split(".")[0].split("_")[0].lower()
    return code if code in LANGUAGES else "en"


@cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of a language (English needs none: the sentences in the code are
    English)."""
    return gettext.translation(DOMAIN, LOCALES, languages=[lang], fallback=True)


def tr(message: str) -> str:
    """`message` in the language the course speaks now ("" stays "": gettext would give the
    catalogue's header)."""
    return catalogue(language()).gettext(message) if message else message


def tr_plural(singular: str, plural: str, n: int) -> str:
    """The singular or plural form, for `n`, in the language the course speaks now."""
    return catalogue(language()).ngettext(singular, plural, n)


def every_language(message: str) -> set[str]:
    """`message` in each language the course speaks: a toy model recognises a tool's answer by what
    it means, whatever language the tool spoke."""
    return {catalogue(lang).gettext(message) for lang in LANGUAGES}


def deferred(message: str) -> str:
    """Mark a module-level sentence for the catalogue; it is translated where it is shown, with
    `tr`."""
    return message


@contextmanager
def speaking(lang: str):
    """Within the block the course speaks `lang` (the grader uses it for a Japanese submission's
    feedback)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; the course speaks {', '.join(LANGUAGES)}")
    token = _speaking.set(lang)
    try:
        yield
    finally:
        _speaking.reset(token)
