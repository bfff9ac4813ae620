"""The Japanese edition, built from one source: `python -m course translate`.

notebooks/ja/, exercises/ja/ and solutions/ja/ are generated from the English notebooks plus a
translation catalogue per notebook, translations/ja/<folder>/<stem>.md. The catalogue has one
section per prose cell, headed by the cell's id and a hash of the English text it translates:

    <!-- cell c01 en:3f2a9c0b7d1e -->
    ## このコースについて
    ...

A code cell with words in it (comments, print labels, prompts) has a code section, kept after the
prose in one block that starts with CODE_BLOCK, headed by the cell's id and a hash of its English
code:

    <!-- code c05 en:9d1e4b7a0c33 -->
    ```python
    print("呼び出し:", calls)  # 表示だけ日本語に
    ```

The Japanese code has the English code's identifiers and structure (`same_structure`: the two ASTs
agree once strings are blanked); a cell without words (`has_words`) needs no section and is copied
as it is, like a cell that is only fenced code. Each generated notebook starts with one extra cell
that makes the library speak Japanese (course.i18n).
An English cell that changed after its translation (stale), a cell without a translation (missing)
and a section whose cell is gone (orphan) are reported by `problems()`, for prose and code alike
(code only in the catalogues not listed in CODE_PENDING); the build refuses to run while any exist.
"""
from __future__ import annotations

import ast
import copy
import hashlib
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

from ..lessons import DIFF_TAG, LOOP_LESSONS, LOOP_TAG, loop_diff

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("notebooks", "exercises", "solutions")  # the English sources; each gets a <folder>/ja/
# same cell ids
CATALOGUE_OF = {"notebooks": "notebooks", "exercises": "exercises", "solutions": "exercises"}
SECTION = re.compile(r"^<!-- cell (\S+) en:([0-9a-f]{12}) -->$", re.M)
CODE_SECTION = re.compile(r"^<!-- code (\S+) en:([0-9a-f]{12}) -->$", re.M)
CODE_BLOCK = "<!-- code cells: the Japanese code of the code cells with words in them -->"
ANY_HEAD = re.compile(rf"{SECTION.pattern}|{CODE_SECTION.pattern}|^{re.escape(CODE_BLOCK)}$", re.M)
PYTHON_FENCE = re.compile(r"\A(`{3,})python\n(.*?)^\1[ \t]*\Z", re.M | re.S)
# two English words: a phrase to translate
WORDS = re.compile(r"[A-Za-z]{2,}[,.;:!?'-]*[ \t]+[A-Za-z]{2,}")
# the catalogues whose code cells are not translated yet (their code is copied in English), as
# "<catalogue folder>/<stem>" (CATALOGUE_OF: an entry "exercises/NN_x" holds exercises/NN_x and
# solutions/NN_x)
CODE_PENDING: frozenset[str] = frozenset()  # none today: every catalogue has its code sections
# a word beside a space: "| calls:"
LABEL = re.compile(r"[A-Za-z]{2,}[,.;:!?|=)-]*\s|\s[(|]?[A-Za-z]{2,}")
# nbgrader's, not words to translate
MARKERS = re.compile(r"#+ (BEGIN|END) (SOLUTION|HIDDEN TESTS)")
FENCED = re.compile(r"^```.*?^```[ \t]*$", re.M | re.S)
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # a kana or kanji
LANG_CELL_ID = "course-lang"
LANG_CELL = ('import os\n\n# ライブラリのメッセージも日本語で表示します\nos.environ["COURSE_LANG"] '
             '= "ja"')


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
    return {s.cell_id: s for s in _sections(path, "cell")}


def read_code(path: Path) -> dict[tuple[str, str], Section]:
    """The code sections of one catalogue file, by (cell id, English hash); the text is the Japanese
    code. (exercises/ and solutions/ share a catalogue: a cell id can have one section for each.)"""
    found = {}
    for s in _sections(path, "code"):
        fence = PYTHON_FENCE.match(s.text)
        if fence is None:
            raise ValueError(f"{path}: code section {s.cell_id} is not one ```python fenced block")
        found[s.cell_id, s.english_hash] = Section(s.cell_id, s.english_hash,
                                                   fence[2].removesuffix("\n"))
    return found


def _sections(path: Path, kind: str) -> list[Section]:
    if not path.exists():
        return []
    raw = path.read_text(encoding="utf-8")
    heads = list(ANY_HEAD.finditer(raw))
    found = []
    for head, nxt in zip(heads, heads[1:] + [None], strict=True):
        cell_id, digest = (head[1], head[2]) if kind == "cell" else (head[3], head[4])
        if cell_id:
            found.append(Section(cell_id, digest,
                                 raw[head.end():nxt.start() if nxt else len(raw)].strip("\n")))
    return found


def code_text(code: str) -> str:
    """A code section's body: the code in a ```python fence (longer if the code holds three
    backticks)."""
    fence = "`" * max(3, 1 + max((len(r) for r in re.findall(r"`+", code)), default=0))
    return f"{fence}python\n{code}\n{fence}"


def write_catalogue(path: Path, sections: list[Section], code: Sequence[Section] = ()) -> None:
    """Write the prose sections, then the code block (code sections hold the code itself, fenced
    here)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(f"<!-- cell {s.cell_id} en:{s.english_hash} -->\n{s.text}\n\n" for s in sections)
    if code:
        text += f"{CODE_BLOCK}\n\n" + "".join(
            f"<!-- code {s.cell_id} en:{s.english_hash} -->\n{code_text(s.text)}\n\n" for s in code)
    path.write_text(text, encoding="utf-8")


def has_words(cell) -> bool:
    """A code cell with a comment, or a string holding a phrase: it needs a code section."""
    if cell.cell_type != "code":
        return False
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(cell.source).readline))
        tree = ast.parse(cell.source)
    except (tokenize.TokenError, SyntaxError):
        return False
    comments = [t.string for t in tokens if t.type == tokenize.COMMENT
                and not MARKERS.match(t.string)]
    strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
               and isinstance(n.value, str)]
    # a phrase in a comment; in a string (an f-string's parts are strings too), a word beside a
    # space: a label
    return any(WORDS.search(text) for text in comments) or any(
        LABEL.search(text) for text in strings)


def _blanked(source: str) -> str:
    """The code's AST with every string constant blanked and f-strings reduced to their fields."""
    class Blank(ast.NodeTransformer):
        def visit_Constant(self, node):
            return ast.Constant("") if isinstance(node.value, str) else node

        def visit_JoinedStr(self, node):
            return ast.JoinedStr([self.visit(v) for v in node.values
                                  if isinstance(v, ast.FormattedValue)])

    return ast.dump(Blank().visit(ast.parse(source)))


def same_structure(english: str, japanese_code: str) -> bool:
    """The two cells have the same identifiers and structure: only strings and comments differ."""
    return _blanked(english) == _blanked(japanese_code)


def catalogue_path(english: Path, root: Path = ROOT) -> Path:
    return root / "translations" / "ja" / CATALOGUE_OF[english.parent.name] / f"{english.stem}.md"


def code_pending(english: Path) -> bool:
    """The notebook's code cells wait for their Japanese: its catalogue is listed in
    CODE_PENDING."""
    return f"{CATALOGUE_OF[english.parent.name]}/{english.stem}" in CODE_PENDING


def sources(root: Path = ROOT) -> list[Path]:
    """Every English notebook that has a Japanese edition."""
    return [p for folder in FOLDERS for p in sorted((root / folder).glob("*.ipynb"))]


def problems(english: Path, root: Path = ROOT) -> list[str]:
    """What stops this notebook's Japanese edition from being built: stale, missing and orphan
    sections."""
    nb = nbformat.read(english, as_version=4)
    sections = read_catalogue(catalogue_path(english, root))
    where = f"{catalogue_path(english, root).relative_to(root)}"
    found = []
    for cell in nb.cells:
        if not is_prose(cell):
            continue
        section = sections.get(cell.id)
        if section is None or not JAPANESE.search(section.text):
            found.append(f"{where}: cell {cell.id} of {english.relative_to(root)} has no "
                         "translation (missing)")
        elif section.english_hash != english_hash(cell.source):
            found.append(f"{where}: cell {cell.id} changed in {english.relative_to(root)} since it "
                         f"was translated (stale: en:{section.english_hash}, now "
                         f"en:{english_hash(cell.source)})")
    prose_ids = {c.id for c in nb.cells if is_prose(c)}
    found += [f"{where}: cell {cid} is not a prose cell of {english.relative_to(root)} (orphan)"
              for cid in sections if cid not in prose_ids]
    return found + code_problems(english, root)


def siblings(english: Path, root: Path = ROOT) -> list[Path]:
    """The English notebooks that share `english`'s catalogue (an exercise and its solution)."""
    return [p for p in sources(root) if catalogue_path(p, root) == catalogue_path(english, root)]


def code_problems(english: Path, root: Path = ROOT) -> list[str]:
    """Stale, missing and orphan code sections, and Japanese code whose structure is not the English
    one's."""
    nb = nbformat.read(english, as_version=4)
    code = read_code(catalogue_path(english, root))
    where, name = catalogue_path(english, root).relative_to(root), english.relative_to(root)
    cells = {(c.id, english_hash(c.source)) for p in siblings(english, root)
             for c in nbformat.read(p, as_version=4).cells if c.cell_type == "code"}
    found, stale = [], set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        section = code.get((cell.id, english_hash(cell.source)))
        # of no cell any more
        others = [h for cid, h in code if cid == cell.id and (cid, h) not in cells]
        if section is None and others:
            stale.add(cell.id)
            found.append(f"{where}: code cell {cell.id} changed in {name} since it was translated "
                         f"(stale: en:{', en:'.join(others)}, now en:{english_hash(cell.source)})")
        elif section is None and has_words(cell) and not code_pending(english):
            found.append(f"{where}: code cell {cell.id} of {name} has no translation (missing)")
        elif section is not None and not JAPANESE.search(section.text):
            found.append(f"{where}: code cell {cell.id} of {name} has no Japanese in its section "
                         "(missing)")
        elif section is not None and not same_structure(cell.source, section.text):
            found.append(f"{where}: code cell {cell.id} of {name}: its Japanese code differs from "
                         "the English in more than strings and comments")
    found += [f"{where}: code {cid} en:{digest} is no code cell of {name} (orphan)"
              for cid, digest in code if (cid, digest) not in cells and cid not in stale]
    return found


def japanese(english: Path, root: Path = ROOT) -> nbformat.NotebookNode:
    """The Japanese edition of one English notebook (outputs as in English, until it is
    executed)."""
    nb = nbformat.read(english, as_version=4)
    sections = read_catalogue(catalogue_path(english, root))
    ja = copy.deepcopy(nb)
    code = read_code(catalogue_path(english, root))
    for cell in ja.cells:
        if is_prose(cell):
            cell.source = sections[cell.id].text
        elif (cell.id, english_hash(cell.source)) in code:
            cell.source = code[cell.id, english_hash(cell.source)].text
        if DIFF_TAG in cell.metadata.get("tags", []) and english.stem in LOOP_LESSONS[1:]:
            before = LOOP_LESSONS[LOOP_LESSONS.index(english.stem) - 1]
            cell.source = loop_diff(japanese_loop(before, root), japanese_loop(english.stem, root),
                                    f"レッスン {before[:2]}", f"レッスン {english.stem[:2]}")
    lang = nbformat.v4.new_code_cell(LANG_CELL, id=LANG_CELL_ID)
    first_code = next((i for i, c in enumerate(ja.cells) if c.cell_type == "code"), len(ja.cells))
    ja.cells.insert(first_code, lang)
    # the grader reads it (and keeps "assignment")
    ja.metadata.setdefault("course", {})["lang"] = "ja"
    return ja


def japanese_loop(stem: str, root: Path = ROOT) -> str:
    """The Japanese code of a loop lesson's loop cell (what its Japanese loop-diff cell
    compares)."""
    english = root / "notebooks" / f"{stem}.ipynb"
    cell = next(c for c in nbformat.read(english, as_version=4).cells
                if LOOP_TAG in c.metadata.get("tags", []))
    section = read_code(catalogue_path(english, root)).get((cell.id, english_hash(cell.source)))
    return section.text if section else cell.source


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
    write_catalogue(path, ordered + list(sections.values()), list(read_code(path).values()))
    return added


def code_skeleton(english: Path, root: Path = ROOT) -> int:
    """Add a code section, in English, for every code cell with words that the catalogue lacks; the
    number added. (A section without Japanese counts as missing until it is translated.)"""
    path = catalogue_path(english, root)
    code = read_code(path)
    added = 0
    for cell in nbformat.read(english, as_version=4).cells:
        key = (cell.id, english_hash(cell.source))
        if has_words(cell) and not code_pending(english) and key not in code:
            code[key] = Section(*key, cell.source)
            added += 1
    write_catalogue(path, list(read_catalogue(path).values()), list(code.values()))
    return added


def chosen(only: list[str] | None = None, root: Path = ROOT) -> list[Path]:
    """The English notebooks whose stem starts with one of `only` (e.g. "03"), or all of them."""
    return [p for p in sources(root) if not only or p.stem.startswith(tuple(only))]


def build(root: Path = ROOT, only: list[str] | None = None) -> list[Path]:
    """Write the Japanese editions (those of `only`, else all); raises with the whole list of
    problems if any of their catalogues is not ready."""
    found = [p for english in chosen(only, root) for p in problems(english, root)]
    if found:
        raise ValueError("the Japanese edition cannot be built:\n  " + "\n  ".join(found))
    written = []
    for english in chosen(only, root):
        out = edition_path(english)
        out.parent.mkdir(exist_ok=True)
        nbformat.write(japanese(english, root), out)
        written.append(out)
    return written


def compile_messages(root: Path = ROOT) -> list[Path]:
    """Compile every gettext catalogue, course/locale/<lang>/LC_MESSAGES/course.po, to its
    course.mo."""
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


def translate(*, execute: bool = True, root: Path = ROOT,
              only: list[str] | None = None) -> list[tuple[Path, str]]:
    """Compile the message catalogues, build every Japanese notebook, then execute them in place
    (exercises keep going after a stub raises, as in English); (path, error or "") for each."""
    from nbclient.exceptions import CellExecutionError

    from .notebook import execute as run

    compile_messages(root)
    done = []
    for path in build(root, only):
        try:
            if execute:
                run(path, allow_errors=path.parent.parent.name == "exercises")
            done.append((path, ""))
        except (CellExecutionError, TimeoutError, RuntimeError) as e:
            done.append((path, f"{type(e).__name__}: {e}"))
    return done
