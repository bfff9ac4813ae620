"""The Japanese edition (notebooks/ja, exercises/ja, solutions/ja) is built from the English notebooks plus
translations/ja: nothing missing or stale, nothing lost in translation, every link and every bold word working."""
from __future__ import annotations

import re
from pathlib import Path

import mistune
import nbformat
import pytest

from course.i18n import speaking
from course.lessons import LESSONS
from course.notebook import VOLATILE_CELL_METADATA
from course.translation import (FENCED, LANG_CELL_ID, ROOT, build, edition_path, english_hash, is_prose, japanese,
                                problems, read_catalogue, skeleton, sources)

SOURCES = sources()
NAMES = [str(p.relative_to(ROOT)) for p in SOURCES]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
CODE_SPAN = re.compile(r"`[^`\n]+`")
LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
CODE_HTML = re.compile(r"<(code|pre)>.*?</\1>", re.S)
render = mistune.create_markdown(plugins=["table", "strikethrough"])


def pairs(english: Path):
    """(English cell, Japanese cell) for every prose cell of one notebook and its Japanese edition."""
    ja = {c.id: c for c in japanese(english).cells}
    return [(c, ja[c.id]) for c in nbformat.read(english, as_version=4).cells if is_prose(c)]


def paragraphs(text: str) -> list[str]:
    return [p for p in text.split("\n\n") if p.strip()]


def shape(cell) -> tuple:
    meta = {k: v for k, v in cell.metadata.items() if k not in VOLATILE_CELL_METADATA}
    return cell.id, cell.cell_type, cell.source, meta


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_every_prose_cell_has_a_translation_of_its_current_english(english):
    assert problems(english) == []


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_the_committed_japanese_notebook_is_what_the_build_gives_and_was_executed(english):
    committed = nbformat.read(edition_path(english), as_version=4)
    assert [shape(c) for c in committed.cells] == [shape(c) for c in japanese(english).cells], (
        f"{edition_path(english).relative_to(ROOT)} is out of date: run `make ja`")
    english_meta = nbformat.read(english, as_version=4).metadata.get("course", {})
    assert committed.metadata["course"] == {**english_meta, "lang": "ja"}
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert code[0].id == LANG_CELL_ID
    assert all(c.execution_count is not None for c in code), "run `make ja`: the notebook was not executed"


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_every_number_and_code_span_of_the_english_survives_translation(english):
    lost = []
    for en, ja in pairs(english):
        prose = FENCED.sub("", en.source)
        for kept in set(NUMBER.findall(prose)) | set(CODE_SPAN.findall(prose)):
            if kept not in ja.source:
                lost.append(f"cell {en.id}: {kept}")
    assert lost == []


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_every_relative_link_of_the_japanese_edition_resolves(english):
    folder = edition_path(english).parent
    broken = []
    for _, ja in pairs(english):
        for target in (a or b for a, b in LINK.findall(ja.source)):
            path = target.split("#")[0]
            if path and "://" not in path and not path.startswith("mailto:") and not (folder / path).exists():
                broken.append(f"cell {ja.id}: {target}")
    assert broken == []


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_bold_and_italic_render_in_japanese_text(english):
    # CommonMark: `**強調：**次` stays literal, since a closing ** after punctuation needs a space or punctuation next
    literal = [f"cell {ja.id}" for _, ja in pairs(english)
               if "**" in CODE_HTML.sub("", render(FENCED.sub("", ja.source)))]
    assert literal == []


def test_each_lesson_s_heading_is_its_title_as_the_library_says_it_in_both_languages():
    for lang, folder in (("en", ROOT / "notebooks"), ("ja", ROOT / "notebooks" / "ja")):
        with speaking(lang):
            headings = [nbformat.read(folder / f"{stem}.ipynb", as_version=4).cells[0].source.splitlines()[0]
                        for stem, _ in LESSONS]
            assert headings == [f"# {stem[:2]} {title}" for stem, title in LESSONS]


def test_an_english_paragraph_shared_by_several_cells_reads_the_same_in_japanese_everywhere():
    # the exercises' opening paragraph, the estimated times: one wording, so students learn it once
    translations: dict[str, dict[str, list[str]]] = {}
    for english in SOURCES:
        for en, ja in pairs(english):
            en_paras, ja_paras = paragraphs(en.source), paragraphs(ja.source)
            for i, para in enumerate(en_paras):
                aligned = ja_paras[i] if len(ja_paras) == len(en_paras) else "(paragraphs not aligned)"
                translations.setdefault(para, {}).setdefault(aligned, []).append(f"{english.stem} {en.id}")
    differing = {en[:40]: ja for en, ja in translations.items()
                 if sum(len(cells) for cells in ja.values()) > 1 and len(ja) > 1}
    assert differing == {}


# The mechanism, on a one-notebook course in a temporary folder.

def tiny_course(root: Path, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(s, id=f"m{i}") for i, s in enumerate(cells)]
                                  + [nbformat.v4.new_code_cell("print(1974)", id="k0")])
    (root / "notebooks").mkdir()
    english = root / "notebooks" / "01_tiny.ipynb"
    nbformat.write(nb, english)
    skeleton(english, root)
    catalogue = root / "translations" / "ja" / "notebooks" / "01_tiny.md"
    catalogue.write_text(catalogue.read_text().replace("The loop.", "ループです。").replace("Twice.", "二回です。"))
    return english


def test_a_changed_english_cell_makes_its_translation_stale(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "Twice."])
    assert problems(english, tmp_path) == []
    nb = nbformat.read(english, as_version=4)
    nb.cells[1].source = "Three times."
    nbformat.write(nb, english)
    assert problems(english, tmp_path) == [
        f"translations/ja/notebooks/01_tiny.md: cell m1 changed in notebooks/01_tiny.ipynb since it was translated "
        f"(stale: en:{english_hash('Twice.')}, now en:{english_hash('Three times.')})"]
    with pytest.raises(ValueError, match="stale"):
        build(tmp_path)


def test_a_cell_without_japanese_is_missing_and_a_section_without_a_cell_is_an_orphan(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "Twice.", "Not yet translated."])
    nb = nbformat.read(english, as_version=4)
    del nb.cells[1]
    nbformat.write(nb, english)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: cell m2 of notebooks/01_tiny.ipynb has no translation (missing)",
        "translations/ja/notebooks/01_tiny.md: cell m1 is not a prose cell of notebooks/01_tiny.ipynb (orphan)"]


def test_the_build_translates_prose_copies_code_and_makes_the_library_speak_japanese(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "```diff\n-a\n+b\n```"])
    assert [p.relative_to(tmp_path) for p in build(tmp_path)] == [Path("notebooks/ja/01_tiny.ipynb")]
    ja = nbformat.read(tmp_path / "notebooks" / "ja" / "01_tiny.ipynb", as_version=4)
    assert [(c.id, c.source) for c in ja.cells] == [
        ("m0", "ループです。"), ("m1", "```diff\n-a\n+b\n```"), (LANG_CELL_ID, ja.cells[2].source),
        ("k0", "print(1974)")]
    assert 'os.environ["COURSE_LANG"] = "ja"' in ja.cells[2].source
    assert list(read_catalogue(tmp_path / "translations" / "ja" / "notebooks" / "01_tiny.md")) == ["m0"]
    assert ja.metadata["course"] == {"lang": "ja"} and english.exists()
