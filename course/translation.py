"""The Japanese edition, built from one source: `python -m course translate`.

notebooks/ja/, exercises/ja/ and solutions/ja/ are generated from the English notebooks plus a translation
catalogue per notebook, translations/ja/<folder>/<stem>.md. The catalogue has one section per prose cell,
headed by the cell's id and a hash of the English text it translates:

    <!-- cell c01 en:3f2a9c0b7d1e -->
    ## このコースについて
    ...

Code cells are the same code; a cell that is only fenced code (a diff, a listing) is copied as it is. Each
generated notebook starts with one extra cell that makes the library speak Japanese (course.i18n).
An English cell that changed after its translation (stale), a prose cell without a translation (missing) and
a section whose cell is gone (orphan) are reported by `problems()`; the build refuses to run while any exist.
"""
from __future__ import annotations

import copy
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("notebooks", "exercises", "solutions")  # the English sources; each gets a <folder>/ja/
CATALOGUE_OF = {"notebooks": "notebooks", "exercises": "exercises", "solutions": "exercises"}  # same cell ids
SECTION = re.compile(r"^<!-- cell (\S+) en:([0-9a-f]{12}) -->$", re.M)
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # a kana or kanji
LANG_CELL_ID = "course-lang"
LANG_CELL = 'import os\n\nos.environ["COURSE_LANG"] = "ja"  # ライブラリのメッセージも日本語で表示します'


def english_hash(source: str) -> str:
    """The hash a translation records of the English text it translates."""
    return hashlib.sha256(source.encode()).hexdigest()[:12]


def is_prose(cell) -> bool:
    """A markdown cell with words outside fenced code: it needs a translation."""
    return cell.cell_type == "markdown" and bool(FENCED.sub("", cell.source).strip())


@dataclass
class Section:
    cell_id: str
    english_hash: str
    text: str


def read_catalogue(path: Path) -> dict[str, Section]:
    """The sections of one catalogue file, by cell id (an absent file is an empty catalogue)."""
    if not path.exists():
        return {}
    raw = path.read_text(encoding="utf-8")
    heads = list(SECTION.finditer(raw))
    sections = {}
    for head, nxt in zip(heads, heads[1:] + [None]):
        body = raw[head.end():nxt.start() if nxt else len(raw)]
        sections[head[1]] = Section(head[1], head[2], body.strip("\n"))
    return sections


def write_catalogue(path: Path, sections: list[Section]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"<!-- cell {s.cell_id} en:{s.english_hash} -->\n{s.text}\n\n" for s in sections),
                    encoding="utf-8")


def catalogue_path(english: Path, root: Path = ROOT) -> Path:
    return root / "translations" / "ja" / CATALOGUE_OF[english.parent.name] / f"{english.stem}.md"


def sources(root: Path = ROOT) -> list[Path]:
    """Every English notebook that has a Japanese edition."""
    return [p for folder in FOLDERS for p in sorted((root / folder).glob("*.ipynb"))]


def problems(english: Path, root: Path = ROOT) -> list[str]:
    """What stops this notebook's Japanese edition from being built: stale, missing and orphan sections."""
    nb = nbformat.read(english, as_version=4)
    sections = read_catalogue(catalogue_path(english, root))
    where = f"{catalogue_path(english, root).relative_to(root)}"
    found = []
    for cell in nb.cells:
        if not is_prose(cell):
            continue
        section = sections.get(cell.id)
        if section is None or not JAPANESE.search(section.text):
            found.append(f"{where}: cell {cell.id} of {english.relative_to(root)} has no translation (missing)")
        elif section.english_hash != english_hash(cell.source):
            found.append(f"{where}: cell {cell.id} changed in {english.relative_to(root)} since it was translated "
                         f"(stale: en:{section.english_hash}, now en:{english_hash(cell.source)})")
    prose_ids = {c.id for c in nb.cells if is_prose(c)}
    found += [f"{where}: cell {cid} is not a prose cell of {english.relative_to(root)} (orphan)"
              for cid in sections if cid not in prose_ids]
    return found


def japanese(english: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The Japanese edition of one English notebook (outputs as in English, until it is executed)."""
    nb = nbformat.read(english, as_version=4)
    sections = read_catalogue(catalogue_path(english, root))
    ja = copy.deepcopy(nb)
    for cell in ja.cells:
        if is_prose(cell):
            cell.source = sections[cell.id].text
    lang = nbformat.v4.new_code_cell(LANG_CELL, id=LANG_CELL_ID)
    first_code = next((i for i, c in enumerate(ja.cells) if c.cell_type == "code"), len(ja.cells))
    ja.cells.insert(first_code, lang)
    ja.metadata.setdefault("course", {})["lang"] = "ja"  # the grader reads it (and keeps "assignment")
    return ja


def edition_path(english: Path) -> Path:
    return english.parent / "ja" / english.name


def skeleton(english: Path, root: Path = ROOT) -> int:
    """Add a section, in English, for every prose cell the catalogue lacks; the number added.
    (A section still in English counts as missing until it is translated.)"""
    nb = nbformat.read(english, as_version=4)
    path = catalogue_path(english, root)
    sections = read_catalogue(path)
    ordered, added = [], 0
    for cell in nb.cells:
        if is_prose(cell):
            if cell.id not in sections:
                sections[cell.id] = Section(cell.id, english_hash(cell.source), cell.source)
                added += 1
            ordered.append(sections.pop(cell.id))
    write_catalogue(path, ordered + list(sections.values()))
    return added


def build(root: Path = ROOT) -> list[Path]:
    """Write every Japanese edition; raises with the whole list of problems if any catalogue is not ready."""
    found = [p for english in sources(root) for p in problems(english, root)]
    if found:
        raise ValueError("the Japanese edition cannot be built:\n  " + "\n  ".join(found))
    written = []
    for english in sources(root):
        out = edition_path(english)
        out.parent.mkdir(exist_ok=True)
        nbformat.write(japanese(english, root), out)
        written.append(out)
    return written


def compile_messages(root: Path = ROOT) -> list[Path]:
    """Compile every gettext catalogue, course/locale/<lang>/LC_MESSAGES/course.po, to its course.mo."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    written = []
    for po in sorted((root / "course" / "locale").glob("*/LC_MESSAGES/*.po")):
        with po.open("rb") as f:
            catalog = read_po(f)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)
        written.append(po.with_suffix(".mo"))
    return written


def translate(*, execute: bool = True, root: Path = ROOT) -> list[tuple[Path, str]]:
    """Compile the message catalogues, build every Japanese notebook, then execute them in place
    (exercises keep going after a stub raises, as in English); (path, error or "") for each."""
    from nbclient.exceptions import CellExecutionError

    from .notebook import execute as run

    compile_messages(root)
    done = []
    for path in build(root):
        try:
            if execute:
                run(path, allow_errors=path.parent.parent.name == "exercises")
            done.append((path, ""))
        except (CellExecutionError, TimeoutError, RuntimeError) as e:
            done.append((path, f"{type(e).__name__}: {e}"))
    return done
