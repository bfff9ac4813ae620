"""Tools (Def. 2.2): schemas from dicts and decorators, error results, the sandboxed workspace."""
import os
import signal
import threading
import typing
from pathlib import Path

import pytest

from course.tools import OutsideWorkspace, Tool, Toolbox, Workspace, from_dict, tool
from course.tools.outbox import Outbox
from course.tools.toolbox import json_type


@tool
def add(a: int, b: int | None = 0, tags: list[str] = None) -> int:
    """Add two numbers."""
    return a + b


def test_the_decorator_builds_the_schema_from_hints_and_docstring():
    assert add.definition() == {"name": "add", "description": "Add two numbers.", "input_schema": {
        "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"},
                                         "tags": {"type": "array"}},
        "required": ["a"]}}
    assert tool(name="plus", read_only=True)(lambda a: a).name == "plus"
    assert json_type(float | None) == "number" and json_type(dict[str, int]) == "object"
    # the older spelling, which hints still use
    assert json_type(typing.Optional[float]) == "number"  # noqa: UP045


def test_from_dict_keeps_the_definition():
    d = {"name": "echo", "description": "Echo.",
         "input_schema": {"type": "object", "properties": {"s": {"type": "string"}}}}
    t = from_dict(d, lambda s="": s, read_only=True)
    assert t.definition() == d and t.read_only


def test_run_never_raises():
    box = Toolbox([add, Tool("boom", "", {"type": "object"}, lambda: 1 / 0)])
    assert box.run("add", {"a": 2, "b": 3}) == ("5", False)
    content, err = box.run("nope", {})
    assert err and "unknown tool 'nope'" in content and "add, boom" in content
    content, err = box.run("add", {"a": "two"})
    assert err and "a: 'two' is not of type 'integer'" in content
    content, err = box.run("add", {"b": 1})
    assert err and "'a' is a required property" in content
    assert box.run("add", ["not", "an", "object"])[1]
    assert box.run("boom", {}) == ("Error: ZeroDivisionError: division by zero", True)


def test_non_string_results_are_json():
    box = Toolbox([Tool("j", "", {"type": "object"}, lambda: {"ok": "é"})])
    assert box.run("j", {}) == ('{"ok": "é"}', False)


@pytest.mark.parametrize("path",
                         ["../x", "a/../../x", "/etc/passwd", "~/x", "..", "a\\..\\..\\x", "a\x00b",
                                  "./../x", "docs/../../x"])
def test_paths_outside_the_workspace_are_refused(path):
    ws = Workspace({"a.txt": "A"})
    with pytest.raises(OutsideWorkspace):
        ws.write(path, "x")
    with pytest.raises(OutsideWorkspace):
        ws.read(path)
    assert ws.files == {"a.txt": "A"}


def test_names_that_stay_inside_are_normalised():
    ws = Workspace()
    ws.write("docs/./a/../b.txt", "B")
    assert ws.files == {"docs/b.txt": "B"} and ws.read("docs//b.txt") == "B"


@pytest.mark.parametrize("path,error", [(".", IsADirectoryError), ("docs", IsADirectoryError),
                                        ("a.txt/x", NotADirectoryError)])
def test_a_name_cannot_be_both_a_file_and_a_folder(path, error):
    ws = Workspace({"a.txt": "A", "docs/b.txt": "B"})
    with pytest.raises(error):
        ws.write(path, "x")


def test_edit_replaces_once_or_changes_nothing():
    ws = Workspace({"a.txt": "x = 1\nx = 1\n"})
    ws.edit("a.txt", "x = 1", "x = 2")
    assert ws.read("a.txt") == "x = 2\nx = 1\n"
    with pytest.raises(ValueError):
        ws.edit("a.txt", "y = 0", "y = 1")
    assert ws.read("a.txt") == "x = 2\nx = 1\n"


def test_listing():
    ws = Workspace({"a.txt": "", "docs/b.md": "", "docsx/c": ""})
    assert ws.listing() == "a.txt\ndocs/b.md\ndocsx/c"
    assert ws.listing("docs") == "docs/b.md" and Workspace().listing() == "(empty)"


def test_checkpoint_and_rewind_restore_the_files_but_not_the_outbox():
    ws, outbox = Workspace({"a.txt": "one"}), Outbox()
    first = ws.checkpoint()
    ws.write("a.txt", "two")
    ws.write("b.txt", "new")
    ws.checkpoint()
    ws.write("a.txt", "three")
    outbox.send("ada@example.com", "hi", "sent")
    ws.rewind()
    assert ws.files == {"a.txt": "two", "b.txt": "new"}
    ws.rewind(first)
    assert ws.files == {"a.txt": "one"}
    assert outbox.received("ada@example.com") == 1  # an e-mail sent stays sent


def test_run_python_runs_a_copy_of_the_files():
    ws = Workspace({"lib/m.py": "X = 41\n",
                    "main.py": "import sys; sys.path.insert(0, 'lib')\nimport m\n"
                    "open('out.txt', 'w').write('side')\nprint(m.X + 1)\n"})
    assert ws.run_python("main.py") == (0, "42")
    assert "out.txt" not in ws.files  # what the program writes stays in the scratch copy
    code, out = Workspace({"bad.py": "raise SystemExit('no')"}).run_python("bad.py")
    assert code == 1 and out == "no"


def test_run_python_kills_programs_that_never_end():
    assert Workspace({"loop.py": "while True: pass"}).run_python("loop.py", timeout=1) == (
        -1,
        "timed out after 1 s",
    )


def dead(pid: int) -> bool:
    """Gone, or a zombie waiting to be reaped."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_run_python_kills_the_children_of_a_timed_out_program(tmp_path):
    pidfile = tmp_path / "child.pid"
    program = ("import subprocess, sys\n"
               "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
               "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               f"open({str(pidfile)!r}, 'w').write(str(p.pid))\n"
               "while True: pass\n")
    assert Workspace({"spawn.py": program}).run_python("spawn.py", timeout=2) == (
        -1,
        "timed out after 2 s",
    )
    pid = int(pidfile.read_text())
    for _ in range(100):  # the kill is immediate; this only waits for the kernel to report it
        if dead(pid):
            break
        threading.Event().wait(0.1)
    else:
        os.kill(pid, signal.SIGKILL)
        pytest.fail("the program's child outlived the timeout")


def test_the_run_python_tool_reports_failures_and_timeouts_as_errors():
    box = Workspace({"ok.py": "print('fine')", "fail.py": "print('FAIL x'); raise SystemExit(1)",
                     "loop.py": "while True: pass"}).toolbox(run_timeout=1)
    assert box.run("run_python", {"path": "ok.py"}) == ("exit code 0\nfine", False)
    content, err = box.run("run_python", {"path": "fail.py"})
    assert err and "exit code 1" in content and "FAIL x" in content
    content, err = box.run("run_python", {"path": "loop.py"})
    assert err and "timed out after 1 s" in content
    assert box.run("run_python", {"path": "../ok.py"})[1]


def test_the_workspace_toolbox():
    box = Workspace({"a.txt": "A"}).toolbox(run=False)
    assert list(box.tools) == ["read_file", "list_files", "write_file", "edit_file"]
    assert [n for n in box.tools if box.is_read_only(n)] == ["read_file", "list_files"]
    assert box.run("read_file", {"path": "missing"}) == ("Error: FileNotFoundError: no such file: "
                                                         "missing", True)
