"""The Japanese gettext catalogue against the code: every message the course marks
(course.i18n.KEYWORDS) has a Japanese translation that is not fuzzy, the catalogue holds no message
the code does not use, a translation keeps its message's {placeholders}, no message appears twice
(branches append to the same .po), and course.mo is what compiling course.po gives. The last test
puts each defect into a copy of the catalogue and sees its check fail."""
from __future__ import annotations

import io
import re
import shutil
import string
import tempfile
from functools import cache
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import PoFileParser, read_po, write_po

from course.editions.translation import compile_messages
from course.i18n import DOMAIN, KEYWORDS

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = Path("course") / "locale" / "ja" / "LC_MESSAGES" / f"{DOMAIN}.po"


@cache
def used() -> dict[str, list[str]]:
    """The key of every message the code marks (a plural's singular) -> where it is used."""
    found: dict[str, list[str]] = {}
    for path, line, message, _, _ in extract_from_dir(ROOT / "course", [("**.py", "python")],
                                                      keywords=KEYWORDS):
        found.setdefault(message[0] if isinstance(message, tuple) else message, []).append(
            f"course/{path}:{line}")
    return found


class Recording(Catalog):
    """A catalogue that remembers the messages read twice (Babel merges them silently)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.twice: list[str] = []

    def __setitem__(self, id, message) -> None:
        if id and id in self:
            self.twice.append(id[0] if isinstance(id, tuple) else id)
        super().__setitem__(id, message)


def parse(root: Path = ROOT) -> Recording:
    catalogue = Recording()
    with (root / CATALOGUE).open("rb") as f:
        PoFileParser(catalogue, ignore_obsolete=False, abort_invalid=True).parse(f)
    return catalogue


def forms(message) -> list[str]:
    return list(message.string) if isinstance(message.string, tuple) else [message.string]


def untranslated(root: Path = ROOT) -> list[str]:
    """Messages the code uses with no Japanese (missing, empty) or a fuzzy one."""
    catalogue = parse(root)
    return [key for key in used() if (m := catalogue.get(key)) is None or m.fuzzy
            or not all(forms(m))]


def obsolete(root: Path = ROOT) -> list[str]:
    """Messages of the catalogue that no code uses (and any entry Babel marks obsolete, #~)."""
    catalogue = parse(root)
    keys = [m.id[0] if isinstance(m.id, tuple) else m.id for m in catalogue if m.id]
    return [key for key in keys if key not in used()] + [str(key) for key in catalogue.obsolete]


def fields(text: str) -> set | None:
    """The str.format fields of a text (name, conversion, format spec); None if the braces do not
    parse."""
    try:
        return {(name, conversion, spec) for _, name, spec,
                conversion in string.Formatter().parse(text)
                if name is not None}
    except ValueError:
        return None


def mismatched(root: Path = ROOT) -> list[str]:
    """Translations whose {placeholders} are not their message's (a plural's Japanese form follows
    the plural)."""
    return [f"{m.id!r} -> {form!r}" for m in parse(root) if m.id for form in forms(m)
            if form and fields(form) != fields(m.id[-1] if isinstance(m.id, tuple) else m.id)]


def translations(mo: Path) -> dict:
    """A compiled catalogue as message -> translation (a plural's as tuples), and its plural rule;
    the header's dates, which change at each compilation, left out."""
    def frozen(x):
        return tuple(x) if isinstance(x, list) else x

    with mo.open("rb") as f:
        catalogue = read_mo(f)
    return {frozen(m.id): frozen(m.string) for m in catalogue if m.id} | {
        "Plural-Forms": catalogue.plural_forms
    }


def stale(root: Path = ROOT) -> list[str]:
    """Messages that course.mo lacks, has more of, or translates otherwise than compiling course.po
    now gives."""
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / CATALOGUE
        copy.parent.mkdir(parents=True)
        shutil.copy(root / CATALOGUE, copy)
        compile_messages(Path(scratch))
        compiled = translations(copy.with_suffix(".mo"))
    shipped = translations((root / CATALOGUE).with_suffix(".mo"))
    return [str(id) for id in compiled.keys() | shipped.keys()
            if compiled.get(id) != shipped.get(id)]


def test_every_message_the_code_marks_has_japanese():
    assert untranslated() == []


def test_the_catalogue_holds_only_messages_the_code_uses():
    assert obsolete() == []


def test_a_translation_keeps_the_placeholders_of_its_message():
    assert mismatched() == []


def test_no_message_appears_twice():
    assert parse().twice == []


def test_course_mo_is_course_po_compiled():
    assert stale() == []


def rewrite(root: Path, change) -> None:
    """Change a copy of the catalogue through Babel (allowed on a copy: the real .po is only ever
    appended to)."""
    with (root / CATALOGUE).open("rb") as f:
        catalogue = read_po(f)
    change(catalogue)
    with (root / CATALOGUE).open("wb") as f:
        write_po(f, catalogue, width=0)


def first_with_fields(catalogue: Catalog):
    return next(m for m in catalogue if m.id and isinstance(m.id, str) and fields(m.id))


def blank(catalogue: Catalog) -> None:
    first_with_fields(catalogue).string = ""


def fuzzy(catalogue: Catalog) -> None:
    first_with_fields(catalogue).flags.add("fuzzy")


def unused(catalogue: Catalog) -> None:
    catalogue.add("a sentence no code uses", "どのコードも使わない文")


def renamed_field(catalogue: Catalog) -> None:
    m = first_with_fields(catalogue)
    m.string = re.sub(r"\{(\w+)", r"{\1_renamed", m.string, count=1)


def twice(root: Path) -> None:
    """Append the first message again, as merging two branches that both added it would."""
    with (root / CATALOGUE).open("rb") as f:
        first = next(m for m in read_po(f) if m.id)
    alone = Catalog(locale="ja")
    alone[first.id] = first
    entry = io.BytesIO()
    write_po(entry, alone, omit_header=True, width=0)
    with (root / CATALOGUE).open("ab") as f:
        f.write(b"\n" + entry.getvalue())


DEFECTS = {  # the defect, made in a copy -> the check that must see it
    "no Japanese": (lambda root: rewrite(root, blank), untranslated),
    "fuzzy": (lambda root: rewrite(root, fuzzy), untranslated),
    "unused": (lambda root: rewrite(root, unused), obsolete),
    "placeholder renamed": (lambda root: rewrite(root, renamed_field), mismatched),
    "twice": (twice, lambda root: parse(root).twice),
    "po changed, mo not": (lambda root: rewrite(root, renamed_field), stale),
}


@pytest.mark.parametrize("defect", DEFECTS)
def test_each_check_fails_on_its_defect(defect, tmp_path):
    (tmp_path / CATALOGUE).parent.mkdir(parents=True)
    for suffix in (".po", ".mo"):
        shutil.copy((ROOT / CATALOGUE).with_suffix(suffix),
                    (tmp_path / CATALOGUE).with_suffix(suffix))
    make, check = DEFECTS[defect]
    assert check(tmp_path) == []  # the copy is sound
    make(tmp_path)
    assert check(tmp_path) != []
