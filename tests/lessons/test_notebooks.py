"""The notebooks as files: links, imports, executed outputs, and the shape of a lesson.

Their outputs are compared cell by cell by `pytest --nbval` (see `make test`);
these tests check what nbval does not. Each checker returns the problems it
finds, and is also run on a small broken notebook to show it can fail.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

from course.grading.judging.registry import shipped
from course.lessons import LESSONS

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("notebooks", "solutions", "exercises")
STEMS = [stem for stem, _ in LESSONS]
GRADED = set(shipped().assignments())  # lessons with a graded exercise (00_start_here has none)


def found(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).glob("*.ipynb"))]


def ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")  # markdown links, not images
EXTERNAL = re.compile(r"^([a-z][a-z0-9+.-]*:|#)", re.I)  # http:, mailto:, in-page anchors
VOLATILE = {
    "a memory address": re.compile(r"0x[0-9a-fA-F]{6,}"),
    "a local path": re.compile(r"(/(home|root|tmp|work|Users|private/var)/|[A-Za-z]:\\\\)"),
    "an API key": re.compile(r"sk-ant-[A-Za-z0-9_-]{8,}"),
}
RAISES = "NBVAL_RAISES_EXCEPTION"
# markers that take a cell out of nbval's comparison
UNCOMPARED = ("NBVAL_IGNORE_OUTPUT", "NBVAL_SKIP")
# per notebook: strict nbval is the point; one cell for what truly differs by installation
MAX_UNCOMPARED = 1


def links(nb) -> list[str]:
    return [t for c in nb.cells if c.cell_type == "markdown" for t in LINK.findall(c.source)]


def broken_links(nb, path: Path) -> list[str]:
    """Relative links whose target file does not exist."""
    bad = []
    for target in links(nb):
        if EXTERNAL.match(target):
            continue
        if not (path.parent / target.split("#", 1)[0]).exists():
            bad.append(target)
    return bad


def code(cell) -> str:
    """A code cell's Python, without IPython magics and shell escapes."""
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                     for line in cell.source.splitlines())


def provides(module, name: str) -> bool:
    """`from module import name` works: an attribute, or a submodule of a package."""
    if hasattr(module, name):
        return True
    return (
        hasattr(module, "__path__")
        and importlib.util.find_spec(f"{module.__name__}.{name}") is not None
    )


def unresolved_imports(nb) -> list[str]:
    """Every `import m` / `from m import x` of the code cells that does not resolve here."""
    bad = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for node in ast.walk(ast.parse(code(cell))):
            if isinstance(node, ast.Import):
                bad += [a.name for a in node.names if importlib.util.find_spec(a.name) is None]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                try:
                    module = importlib.import_module(node.module)
                except ImportError:
                    bad.append(node.module)
                    continue
                bad += [f"{node.module}.{a.name}" for a in node.names if a.name != "*"
                        and not provides(module, a.name)]
    return bad


def raises_on_purpose(cell) -> bool:
    return RAISES in cell.source or "raises-exception" in cell.metadata.get("tags", [])


def execution_problems(nb) -> list[str]:
    """Code cells never executed, executed out of order, or with an error output they were not meant
    to have."""
    bad, last = [], 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not cell.source.strip():
            continue
        if cell.execution_count is None:
            bad.append(f"cell {i} was not executed")
            continue
        if cell.execution_count <= last:
            bad.append(f"cell {i} ran out of order (execution count {cell.execution_count} after "
                       f"{last})")
        last = cell.execution_count
        if any(o.output_type == "error" for o in cell.outputs) and not raises_on_purpose(cell):
            bad.append(f"cell {i} has an error output")
    return bad


def uncompared_cells(nb) -> list[int]:
    """Code cells nbval does not compare (marked by comment or by tag)."""
    tags = {m.lower().replace("_", "-") for m in UNCOMPARED}
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and (any(m in c.source for m in UNCOMPARED)
                 or tags & {t.lower() for t in c.metadata.get("tags", [])})]


def output_text(output) -> str:
    if output.output_type == "stream":
        return output.text
    if output.output_type == "error":
        return f"{output.ename}: {output.evalue}"
    return "\n".join(v for k, v in output.get("data", {}).items() if k.startswith("text/")
                     and isinstance(v, str))


def volatile_outputs(nb) -> list[str]:
    """Outputs holding a memory address, a local path or a key: different on every machine, or
    secret."""
    bad = []
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for what, pattern in VOLATILE.items():
                hit = pattern.search(output_text(output))
                if hit:
                    bad.append(f"cell {i}: {what} {hit.group(0)!r}")
    return bad


def shape_problems(nb, stem: str, graded: bool = True) -> list[str]:
    """A lesson opens with objectives and an estimated time, and ends with key points and (if
    graded) its exercise."""
    bad = []
    opening = " ".join(c.source for c in nb.cells[:2] if c.cell_type == "markdown").lower()
    for what in ("objectives", "estimated time"):
        if what not in opening:
            bad.append(f"the first cells do not state the {what}")
    closing = nb.cells[-1].source if nb.cells and nb.cells[-1].cell_type == "markdown" else ""
    if "key points" not in closing.lower():
        bad.append("the last cell does not list the key points")
    if graded and f"../exercises/{stem}.ipynb" not in LINK.findall(closing):
        bad.append(f"the last cell does not link to ../exercises/{stem}.ipynb")
    return bad


def read(path: Path):
    return nbformat.read(path, as_version=4)


# --- the course's notebooks
# ---------------------------------------------------------------------------------

def test_every_notebook_in_notebooks_is_a_lesson_of_the_course():
    assert [p.stem for p in found("notebooks") if p.stem not in STEMS] == []


def test_solutions_and_exercises_are_named_after_lessons():
    assert [p.stem for p in found("solutions", "exercises") if p.stem not in STEMS] == []


@pytest.mark.parametrize("stem", STEMS)
def test_every_lesson_exists(stem):
    assert (ROOT / "notebooks" / f"{stem}.ipynb").exists()


def test_start_here_links_every_lesson():
    nb = read(ROOT / "notebooks" / "00_start_here.ipynb")
    assert [s for s in STEMS if f"{s}.ipynb" not in links(nb)] == []


@pytest.mark.parametrize("path", found(*FOLDERS), ids=ids(found(*FOLDERS)))
def test_relative_links_resolve(path):
    assert broken_links(read(path), path) == []


@pytest.mark.parametrize("path", found(*FOLDERS), ids=ids(found(*FOLDERS)))
def test_imports_resolve(path):
    assert unresolved_imports(read(path)) == []


@pytest.mark.parametrize("path", found("notebooks", "solutions"),
                         ids=ids(found("notebooks", "solutions")))
def test_executed_in_order_without_errors(path):
    assert execution_problems(read(path)) == []


@pytest.mark.parametrize("path", found(*FOLDERS), ids=ids(found(*FOLDERS)))
def test_outputs_hold_no_addresses_paths_or_keys(path):
    assert volatile_outputs(read(path)) == []


@pytest.mark.parametrize("path", found(*FOLDERS), ids=ids(found(*FOLDERS)))
def test_outputs_are_compared_except_for_at_most_one_cell(path):
    assert len(uncompared_cells(read(path))) <= MAX_UNCOMPARED


@pytest.mark.parametrize("path", found("notebooks"), ids=ids(found("notebooks")))
def test_lesson_opens_with_objectives_and_ends_with_key_points_and_exercise(path):
    assert shape_problems(read(path), path.stem, graded=path.stem in GRADED) == []


# --- the checkers can fail
# ----------------------------------------------------------------------------------

def notebook(*cells):
    return nbformat.v4.new_notebook(cells=list(cells))


md, py = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell


def test_broken_links_are_found_and_external_ones_ignored():
    nb = notebook(md("[ok](01_messages_and_blocks.ipynb) [gone](99_nothing.ipynb#top) "
                     "[web](https://x.org) [here](#key-points) ![img](missing.png)"))
    assert broken_links(nb, ROOT / "notebooks" / "00_start_here.ipynb") == ["99_nothing.ipynb#top"]


def test_unresolved_imports_are_found():
    nb = notebook(py("%matplotlib inline\nimport json\nfrom course.messages import text, "
                     "no_such_name\n"
                     "import no_such_module\nfrom course.nowhere import x\nfrom course import viz"))
    assert unresolved_imports(nb) == ["course.messages.no_such_name", "no_such_module",
                                      "course.nowhere"]


def test_unexecuted_out_of_order_and_failed_cells_are_found():
    cells = [py("1", execution_count=2), py("2", execution_count=1), py("3"), py(""),
             py("1/0", execution_count=3,
                outputs=[nbformat.v4.new_output("error", ename="ZeroDivisionError",
                                                                       evalue="division by zero",
                                                traceback=[])]),
             py(f"# {RAISES}\n1/0", execution_count=4,
                outputs=[nbformat.v4.new_output("error", ename="E", evalue="e", traceback=[])])]
    assert execution_problems(notebook(*cells)) == [
        "cell 1 ran out of order (execution count 1 after 2)", "cell 2 was not executed",
        "cell 4 has an error output"]


def test_volatile_outputs_are_found():
    cells = [py("x", execution_count=1,
                outputs=[nbformat.v4.new_output("stream", text="<object at 0x7f3a2b1c9d00>")]),
             py("y", execution_count=2, outputs=[nbformat.v4.new_output(
                 "execute_result", data={"text/plain": "'/tmp/course-sandbox-abc/a.py'"},
                 execution_count=2)]),
             py("z", execution_count=3,
                outputs=[nbformat.v4.new_output("stream", text="tokens: 0x12")])]
    assert volatile_outputs(notebook(*cells)) == ["cell 0: a memory address '0x7f3a2b1c9d00'",
                                                  "cell 1: a local path '/tmp/'"]


def test_uncompared_cells_are_found_by_comment_or_tag():
    tagged = py("x")
    tagged.metadata["tags"] = ["nbval-skip"]
    nb = notebook(py("# NBVAL_IGNORE_OUTPUT\nimport platform"), md("NBVAL_IGNORE_OUTPUT in prose"),
                  tagged, py("1"))
    assert uncompared_cells(nb) == [0, 2]


def test_lesson_shape_problems_are_found():
    nb = notebook(md("# 03 The first loop\n\n**Objectives**"), py("1"),
                  md("## Key points\n\n[exercise](../exercises/04_termination.ipynb)"))
    assert shape_problems(nb, "03_the_first_loop") == [
        "the first cells do not state the estimated time",
        "the last cell does not link to ../exercises/03_the_first_loop.ipynb"]
    assert shape_problems(nb, "03_the_first_loop", graded=False) == ["the first cells do not state "
                                                                     "the estimated time"]
