"""The Japanese edition (notebooks/ja, exercises/ja, solutions/ja) is built from the English
notebooks plus translations/ja: nothing missing or stale, nothing lost in translation, every link
and every bold word working."""
from __future__ import annotations

import re
from pathlib import Path

import mistune
import nbformat
import pytest

from course.editions.notebook import VOLATILE_CELL_METADATA
from course.editions.translation import (
    CODE_BLOCK,
    FENCED,
    LANG_CELL_ID,
    ROOT,
    Section,
    build,
    catalogue_path,
    code_pending,
    code_skeleton,
    edition_path,
    english_hash,
    has_words,
    is_prose,
    japanese,
    problems,
    read_catalogue,
    read_code,
    same_structure,
    skeleton,
    sources,
    write_catalogue,
)
from course.i18n import speaking
from course.lessons import LESSONS

SOURCES = sources()
NAMES = [str(p.relative_to(ROOT)) for p in SOURCES]
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
CODE_SPAN = re.compile(r"`[^`\n]+`")
LINK = re.compile(r"\]\(([^)\s]+)\)|href=\"([^\"]+)\"")
CODE_HTML = re.compile(r"<(code|pre)>.*?</\1>", re.S)
# a code span quoting words (a prompt): said in Japanese
SAID = re.compile(r'"[^"`]*[A-Za-z]+ [A-Za-z]+[^"`]*"')
render = mistune.create_markdown(plugins=["table", "strikethrough"])


def pairs(english: Path):
    """(English cell, Japanese cell) for every prose cell of one notebook and its Japanese
    edition."""
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
    assert all(c.execution_count is not None for c in code), ("run `make ja`: the notebook was not "
                                                              "executed")


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_every_number_and_code_span_of_the_english_survives_translation(english):
    lost = []
    for en, ja in pairs(english):
        prose = FENCED.sub("", en.source)
        for kept in set(NUMBER.findall(prose)) | set(CODE_SPAN.findall(prose)):
            if kept not in ja.source and not SAID.search(kept):
                lost.append(f"cell {en.id}: {kept}")
    assert lost == []


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_every_relative_link_of_the_japanese_edition_resolves(english):
    folder = edition_path(english).parent
    broken = []
    for _, ja in pairs(english):
        for target in (a or b for a, b in LINK.findall(ja.source)):
            path = target.split("#")[0]
            if (
                path
                and "://" not in path
                and not path.startswith("mailto:")
                and not (folder / path).exists()
            ):
                broken.append(f"cell {ja.id}: {target}")
    assert broken == []


@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_bold_and_italic_render_in_japanese_text(english):
    # CommonMark: `**強調：**次` stays literal, since a closing ** after punctuation needs a space
    # or punctuation next
    literal = [f"cell {ja.id}" for _, ja in pairs(english)
               if "**" in CODE_HTML.sub("", render(FENCED.sub("", ja.source)))]
    assert literal == []


def test_each_lesson_s_heading_is_its_title_as_the_library_says_it_in_both_languages():
    for lang, folder in (("en", ROOT / "notebooks"), ("ja", ROOT / "notebooks" / "ja")):
        with speaking(lang):
            headings = [
                nbformat.read(folder / f"{stem}.ipynb", as_version=4)
                .cells[0]
                .source.splitlines()[0]
                for stem, _ in LESSONS
            ]
            assert headings == [f"# {stem[:2]} {title}" for stem, title in LESSONS]


def test_an_english_paragraph_shared_by_several_cells_reads_the_same_in_japanese_everywhere():
    # the exercises' opening paragraph, the estimated times: one wording, so students learn it once
    translations: dict[str, dict[str, list[str]]] = {}
    for english in SOURCES:
        for en, ja in pairs(english):
            en_paras, ja_paras = paragraphs(en.source), paragraphs(ja.source)
            for i, para in enumerate(en_paras):
                aligned = (
                    ja_paras[i] if len(ja_paras) == len(en_paras) else "(paragraphs not aligned)"
                )
                translations.setdefault(para, {}).setdefault(aligned, []).append(
                    f"{english.stem} {en.id}")
    differing = {en[:40]: ja for en, ja in translations.items()
                 if sum(len(cells) for cells in ja.values()) > 1 and len(ja) > 1}
    assert differing == {}


# The mechanism, on a one-notebook course in a temporary folder.

def tiny_course(root: Path, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(s, id=f"m{i}") for i,
                                         s in enumerate(cells)]
                                  + [nbformat.v4.new_code_cell("print(1974)", id="k0")])
    (root / "notebooks").mkdir()
    english = root / "notebooks" / "01_tiny.ipynb"
    nbformat.write(nb, english)
    skeleton(english, root)
    catalogue = root / "translations" / "ja" / "notebooks" / "01_tiny.md"
    catalogue.write_text(
        catalogue.read_text().replace("The loop.", "ループです。").replace("Twice.", "二回です。"))
    return english


def test_a_changed_english_cell_makes_its_translation_stale(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "Twice."])
    assert problems(english, tmp_path) == []
    nb = nbformat.read(english, as_version=4)
    nb.cells[1].source = "Three times."
    nbformat.write(nb, english)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: cell m1 changed in notebooks/01_tiny.ipynb since "
        f"it was translated (stale: en:{english_hash('Twice.')}, now "
        f"en:{english_hash('Three times.')})"]
    with pytest.raises(ValueError, match="stale"):
        build(tmp_path)


def test_a_cell_without_japanese_is_missing_and_a_section_without_a_cell_is_an_orphan(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "Twice.", "Not yet translated."])
    nb = nbformat.read(english, as_version=4)
    del nb.cells[1]
    nbformat.write(nb, english)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: cell m2 of notebooks/01_tiny.ipynb has no "
        "translation (missing)",
        "translations/ja/notebooks/01_tiny.md: cell m1 is not a prose cell of "
        "notebooks/01_tiny.ipynb (orphan)"]


def test_the_build_translates_prose_copies_code_and_makes_the_library_speak_japanese(tmp_path):
    english = tiny_course(tmp_path, ["The loop.", "```diff\n-a\n+b\n```"])
    assert [p.relative_to(tmp_path) for p in build(tmp_path)] == [
        Path("notebooks/ja/01_tiny.ipynb")
    ]
    ja = nbformat.read(tmp_path / "notebooks" / "ja" / "01_tiny.ipynb", as_version=4)
    assert [(c.id, c.source) for c in ja.cells] == [
        ("m0", "ループです。"), ("m1", "```diff\n-a\n+b\n```"), (LANG_CELL_ID, ja.cells[2].source),
        ("k0", "print(1974)")]
    assert 'os.environ["COURSE_LANG"] = "ja"' in ja.cells[2].source
    assert list(read_catalogue(tmp_path / "translations" / "ja" / "notebooks" / "01_tiny.md")) == [
        "m0"
    ]
    assert ja.metadata["course"] == {"lang": "ja"} and english.exists()


# Code cells: a code section holds the Japanese code of a cell with words in it.

@pytest.mark.parametrize("english", SOURCES, ids=NAMES)
def test_japanese_code_keeps_the_identifiers_and_structure_of_the_english(english):
    code = read_code(catalogue_path(english))
    translated = [c for c in nbformat.read(english, as_version=4).cells
                  if (c.id, english_hash(c.source)) in code]
    assert all(
        same_structure(c.source, code[c.id, english_hash(c.source)].text) for c in translated
    )
    # every cell with words is translated: its labels and prompts read Japanese
    if not code_pending(english):
        # (a cell whose only words are single-word labels, `print(n, "calls")`, may be translated
        # too)
        assert {c.id for c in nbformat.read(english, as_version=4).cells if has_words(c)} <= {
            c.id for c in translated
        }


def test_an_english_code_cell_shared_by_several_notebooks_reads_the_same_in_japanese_everywhere():
    # the student's final loop, copied from lesson 09 into the later lessons: one Japanese wording
    # of it
    versions: dict[str, set[str]] = {}
    for english in SOURCES:
        for (_, digest), section in read_code(catalogue_path(english)).items():
            versions.setdefault(digest, set()).add(section.text)
    assert {digest: len(texts) for digest, texts in versions.items() if len(texts) > 1} == {}


def test_code_sections_sit_in_one_block_after_the_prose():
    for path in sorted((ROOT / "translations" / "ja").glob("*/*.md")):
        raw = path.read_text(encoding="utf-8")
        prose, _, code = raw.partition(CODE_BLOCK)
        assert "<!-- code " not in prose.replace(CODE_BLOCK, ""), path
        assert "<!-- cell " not in code, f"{path}: a prose section after the code block"


def test_what_needs_a_code_section():
    cell = nbformat.v4.new_code_cell
    needs = ['print("model calls:", n)', 'x = 1  # the cap', 'print(f"{n} calls, {t} turns")',
             'user("When was she born?")']
    needs_not = ['get("aurora_run")', 'print(r.calls, r.turns)',
                 'run("read_file", {"path": "src/cart.py"})',
                 '# NBVAL_IGNORE_OUTPUT\nprint(1)', '    ### BEGIN SOLUTION\nx = 1']
    assert [has_words(cell(s)) for s in needs] == [True] * len(needs)
    assert [has_words(cell(s)) for s in needs_not] == [False] * len(needs_not)


def test_only_strings_and_comments_may_differ():
    english = 'for r in runs:\n    print("calls:", r.calls, f"{r.turns} turns")  # one line'
    assert same_structure(english, 'for r in runs:\n    print("呼び出し:", r.calls, f"ターン '
                                   '{r.turns} 回")  # 1 行')
    # an argument dropped
    assert not same_structure(english, 'for r in runs:\n    print("呼び出し:", r.calls)')
    assert not same_structure(english, 'for run in runs:\n    print("呼び出し:", run.calls, '
                                       'f"{run.turns} ターン")')
    assert not same_structure(english, 'for r in runs:\n    print(r.calls, "呼び出し:", '
                                       'f"{r.turns} ターン")')


def with_code(english: Path, root: Path, cell_id: str, code: str,
              digest: str | None = None) -> None:
    path = catalogue_path(english, root)
    if digest is None:
        digest = english_hash(next(c.source for c in nbformat.read(english, as_version=4).cells
                                   if c.id == cell_id))
    code_sections = [*read_code(path).values(), Section(cell_id, digest, code)]
    write_catalogue(path, list(read_catalogue(path).values()), code_sections)


def code_course(root: Path) -> Path:
    english = tiny_course(root, ["The loop."])
    nb = nbformat.read(english, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell('print("model calls:", 3)  # the count', id="k1"))
    nbformat.write(nb, english)
    return english


def test_a_code_cell_with_words_is_missing_until_it_has_japanese_code(tmp_path):
    english = code_course(tmp_path)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: code cell k1 of notebooks/01_tiny.ipynb has no "
        "translation (missing)"]
    code_skeleton(english, tmp_path)  # in English: still missing
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: code cell k1 of notebooks/01_tiny.ipynb has no "
        "Japanese in its section (missing)"]


def test_the_build_puts_the_japanese_code_in_place_and_keeps_the_prose(tmp_path):
    english = code_course(tmp_path)
    with_code(english, tmp_path, "k1", 'print("モデル呼び出し:", 3)  # 回数')
    assert problems(english, tmp_path) == []
    skeleton(english, tmp_path)  # rewriting the catalogue keeps its code block
    build(tmp_path)
    ja = nbformat.read(tmp_path / "notebooks" / "ja" / "01_tiny.ipynb", as_version=4)
    assert [(c.id, c.source) for c in ja.cells if c.id != LANG_CELL_ID] == [
        ("m0", "ループです。"), ("k0", "print(1974)"),
        ("k1", 'print("モデル呼び出し:", 3)  # 回数')]


def test_code_waits_for_japanese_by_catalogue_so_a_lesson_can_be_done_while_its_exercise_waits(
    tmp_path, monkeypatch):
    english = code_course(tmp_path)
    (tmp_path / "solutions").mkdir()
    solution = tmp_path / "solutions" / "01_tiny.ipynb"
    nbformat.write(
        nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell('print("points:", 3)', id="s1")]),
        solution)
    monkeypatch.setattr("course.editions.translation.CODE_PENDING",
                        frozenset({"exercises/01_tiny"}))
    # solutions/ share the exercises' catalogue
    assert code_pending(solution) and not code_pending(english)
    assert [p for p in problems(english, tmp_path) if "code cell" in p] == [
        "translations/ja/notebooks/01_tiny.md: code cell k1 of notebooks/01_tiny.ipynb has no "
        "translation (missing)"]
    assert problems(solution, tmp_path) == []


def test_a_changed_code_cell_is_stale_a_gone_one_an_orphan_and_other_code_is_refused(tmp_path):
    english = code_course(tmp_path)
    with_code(english, tmp_path, "k1", 'print("モデル呼び出し:", 3)  # 回数')
    nb = nbformat.read(english, as_version=4)
    old = english_hash(nb.cells[-1].source)
    nb.cells[-1].source = 'print("model calls:", 4)  # the count'
    nbformat.write(nb, english)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: code cell k1 changed in notebooks/01_tiny.ipynb "
        f"since it was translated (stale: en:{old}, now en:{english_hash(nb.cells[-1].source)})"]
    # not only strings and comments
    with_code(english, tmp_path, "k1", 'print("モデル呼び出し:", 4 + 1)')
    with_code(english, tmp_path, "k9", 'print("消えたセル")', digest=old)
    assert problems(english, tmp_path) == [
        "translations/ja/notebooks/01_tiny.md: code cell k1 of notebooks/01_tiny.ipynb: its "
        "Japanese code differs from the English in more than strings and comments",
        f"translations/ja/notebooks/01_tiny.md: code k1 en:{old} is no code cell of "
        "notebooks/01_tiny.ipynb (orphan)",
        f"translations/ja/notebooks/01_tiny.md: code k9 en:{old} is no code cell of "
        "notebooks/01_tiny.ipynb (orphan)"]
    with pytest.raises(ValueError, match="differs from the English"):
        build(tmp_path)
