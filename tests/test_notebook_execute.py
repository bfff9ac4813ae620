"""`python -m course execute`: notebooks run in place, offline, deterministically; and the setup
check."""
from __future__ import annotations

import importlib.metadata
import tomllib
from pathlib import Path

import nbformat
import pytest
from packaging.requirements import Requirement

from course.__main__ import main
from course.editions.notebook import coalesce, execute, execute_all
from course.lessons import python_ok, requirements

pytestmark = pytest.mark.slow  # executes notebooks in fresh kernels: make test, not make check

ROOT = Path(__file__).resolve().parents[1]


def write(path: Path, *sources: str) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(s) for s in sources])
    nbformat.write(nb, path)
    return path


def test_execute_writes_outputs_offline_in_the_notebooks_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSE_LIVE", "1")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "not-a-key")
    path = write(tmp_path / "a.ipynb",
                 "import os\nprint(os.environ.get('COURSE_LIVE'), "
                 "os.environ.get('ANTHROPIC_API_KEY'))",
                 "print(os.getcwd() == os.path.dirname(os.path.abspath('a.ipynb')), "
                 "os.path.exists('a.ipynb'))",
                 "for word in ('one', 'two', 'three'):\n    print(word, flush=True)",
                 "os.environ['PYTHONHASHSEED']")
    execute(path)
    nb = nbformat.read(path, as_version=4)
    assert [c.execution_count for c in nb.cells] == [1, 2, 3, 4]
    assert [len(c.outputs) for c in nb.cells] == [1, 1, 1, 1]  # the three prints are one output
    assert nb.cells[0].outputs[0].text == "None None\n"
    assert nb.cells[1].outputs[0].text == "True True\n"
    assert nb.cells[2].outputs[0].text == "one\ntwo\nthree\n"
    assert nb.cells[3].outputs[0].data["text/plain"] == "'0'"
    assert all("execution" not in c.metadata for c in nb.cells)


def test_a_notebook_speaks_english_on_a_japanese_machine_unless_it_says_otherwise(
    tmp_path, monkeypatch):
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    monkeypatch.setenv("COURSE_LANG", "ja")
    said = "from course.i18n import tr\nprint(tr('interrupted by the user'))"
    path = write(tmp_path / "a.ipynb", said, "import os\nos.environ['COURSE_LANG'] = 'ja'", said)
    execute(path)
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[0].outputs[0].text == "interrupted by the user\n"
    # a Japanese notebook's first cell
    assert nb.cells[2].outputs[0].text != "interrupted by the user\n"


def test_executing_twice_gives_the_same_file(tmp_path):
    path = write(tmp_path / "b.ipynb", "from course.messages import user\nuser('hi')",
                 "print(list(range(3)))")
    execute(path)
    first = path.read_bytes()
    execute(path)
    assert path.read_bytes() == first


def test_widgets_keep_their_html_snapshot_but_not_their_random_model_id(tmp_path):
    path = write(tmp_path / "w.ipynb", "from course.viz.explorer import Explorer\nExplorer()")
    execute(path)
    first = path.read_bytes()
    data = nbformat.read(path, as_version=4).cells[0].outputs[0].data
    assert "application/vnd.jupyter.widget-view+json" not in data
    # the static snapshot shows an outcome
    assert "error_" in data["text/html"] or "success" in data["text/html"]
    execute(path)
    assert path.read_bytes() == first


def test_a_failing_notebook_is_reported_and_left_unchanged(tmp_path):
    good = write(tmp_path / "good.ipynb", "1 + 1")
    bad = write(tmp_path / "bad.ipynb", "1 / 0")
    before = bad.read_bytes()
    assert execute_all([str(good), str(bad)]) == [(str(bad), "ZeroDivisionError: division by zero")]
    assert bad.read_bytes() == before
    assert nbformat.read(good, as_version=4).cells[0].outputs[0].data["text/plain"] == "2"


def test_the_command_refuses_missing_notebooks_and_fails_on_errors(tmp_path, capsys):
    assert main(["execute", str(tmp_path / "nothing.ipynb")]) == 2
    assert "no such notebook" in capsys.readouterr().err
    assert main(["execute", str(write(tmp_path / "bad.ipynb", "raise ValueError('no')"))]) == 1
    assert "ValueError: no" in capsys.readouterr().err


def test_coalesce_joins_only_neighbouring_chunks_of_one_stream():
    out = nbformat.v4.new_output
    joined = coalesce([out("stream", name="stdout", text="a"),
                       out("stream", name="stdout", text="b"),
                       out("stream", name="stderr", text="c"),
                       out("stream", name="stdout", text="d"),
                       out("execute_result", data={"text/plain": "1"}, execution_count=1),
                       out("stream", name="stdout", text="e")])
    assert [(o.output_type, o.get("text")) for o in joined] == [
        ("stream", "ab"), ("stream", "c"), ("stream", "d"), ("execute_result", None),
        ("stream", "e")]


def test_the_setup_check_reads_the_declared_dependencies():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    found = requirements()
    assert [(d.name, d.required) for d in found] == [(r.name, str(r.specifier)) for r in map(
        Requirement, declared)]
    assert all(d.ok and d.installed for d in found)
    assert python_ok()


def test_the_setup_check_is_not_fooled_by_stale_metadata(monkeypatch):
    """A course.egg-info left in the checkout by an older install once hid two dependencies from
    lesson 00's kernel."""
    monkeypatch.setattr(importlib.metadata, "requires", lambda name: ["anthropic>=2.14"])
    assert len(requirements()) == len(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
