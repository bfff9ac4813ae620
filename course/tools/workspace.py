"""A sandboxed workspace: virtual files the tools read and write, with checkpoints.

Paths are relative to the workspace root; anything that leaves it (absolute
paths, `~`, `..` that climbs out, backslashes, NUL bytes) is refused, and no
name can be both a file and a folder. `run_python` runs real code in a
subprocess on a scratch copy of the files, with a timeout that kills the whole
process group: it isolates the files, it is not a security sandbox. Where it runs is
the `RUNNER` of the context: here by default; the grader sets its sandbox's runner, so
code a graded call writes never runs in the grader. `checkpoint()` / `rewind()` restore the files,
as Claude Code's checkpoints do; effects outside the files (an e-mail sent) are
not undone: that is the point of the lesson on idempotency.
"""
from __future__ import annotations

import os
import posixpath
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path

from ..i18n import tr
from .toolbox import Tool, Toolbox


class OutsideWorkspace(ValueError):
    pass


def run_here(files: dict[str, str], path: str, timeout: float) -> tuple[int, str]:
    """Run `path` with Python in a scratch folder holding `files`: (exit code, output); after
    `timeout` seconds the process and its children are killed: (-1, "timed out ...")."""
    with tempfile.TemporaryDirectory(prefix="course-sandbox-") as tmp:
        for rel, content in files.items():
            target = Path(tmp, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-E", "-S", path], cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, env={"PYTHONHASHSEED": "0"},
                                start_new_session=True)  # its own process group, killed as one
        try:
            output, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            output = None
        finally:  # timed out or interrupted: leave no process behind
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.communicate()
    if output is None:
        return -1, tr("timed out after {seconds} s").format(seconds=f"{timeout:g}")
    return proc.returncode, output.replace(tmp + "/", "").strip()


# where run_python runs (files, path, timeout) -> (exit code, output): here, or in the grader's
# sandbox
RUNNER: ContextVar[Callable[[dict[str, str], str, float], tuple[int, str]]] = ContextVar(
    "RUNNER", default=run_here)


class Workspace:
    def __init__(self, files: dict[str, str] | None = None):
        self.files: dict[str, str] = {}
        self._checkpoints: list[dict[str, str]] = []
        for path, content in (files or {}).items():
            self.files[self._file_path(path)] = content

    @staticmethod
    def resolve(path: str) -> str:
        """The normalised relative path, or OutsideWorkspace."""
        if not isinstance(path, str) or path.startswith(("/", "~")) or "\\" in path or "\0" in path:
            raise OutsideWorkspace(tr("{path} is outside the workspace").format(path=repr(path)))
        norm = posixpath.normpath(path)
        if norm == ".." or norm.startswith("../"):
            raise OutsideWorkspace(tr("{path} is outside the workspace").format(path=repr(path)))
        return norm

    def _file_path(self, path: str) -> str:
        """A path a file may have: not the root, not inside another file, not a folder of files."""
        p = self.resolve(path)
        if p == ".":
            raise IsADirectoryError(
                tr("{path} is the workspace folder, not a file").format(path=repr(path)))
        parents = [posixpath.dirname(p)]
        while parents[-1]:
            parents.append(posixpath.dirname(parents[-1]))
        clash = [q for q in parents if q in self.files]
        if clash:
            raise NotADirectoryError(tr("{file} is a file, so {path} cannot be created").format(
                file=repr(clash[0]), path=repr(path)))
        if any(q.startswith(p + "/") for q in self.files):
            raise IsADirectoryError(tr("{path} is a folder").format(path=repr(path)))
        return p

    def read(self, path: str) -> str:
        # a folder raises IsADirectoryError (EISDIR), as reading one on disk does
        p = self._file_path(path)
        if p not in self.files:
            raise FileNotFoundError(tr("no such file: {path}").format(path=path))
        return self.files[p]

    def write(self, path: str, content: str) -> str:
        self.files[self._file_path(path)] = content
        return tr("wrote {n} characters to {path}").format(n=len(content), path=path)

    def edit(self, path: str, old: str, new: str) -> str:
        """Replace the one occurrence of `old`; fail, changing nothing, if it is absent."""
        text = self.read(path)
        if old not in text:
            raise ValueError(tr("{old} not found in {path}").format(old=repr(old), path=path))
        self.files[self.resolve(path)] = text.replace(old, new, 1)
        return tr("edited {path}").format(path=path)

    def listing(self, path: str = ".") -> str:
        base = self.resolve(path)
        names = sorted(p for p in self.files if base == "." or p.startswith(base + "/"))
        return "\n".join(names) if names else tr("(empty)")

    def checkpoint(self) -> int:
        """Save the files; returns the checkpoint's number."""
        self._checkpoints.append(dict(self.files))
        return len(self._checkpoints) - 1

    def rewind(self, number: int = -1) -> None:
        """Restore the files saved by checkpoint `number` (the last one by default)."""
        self.files = dict(self._checkpoints[number])

    def run_python(self, path: str, timeout: float = 10.0) -> tuple[int, str]:
        """Run a workspace file with Python in a scratch folder holding a copy of the files, where
        the context's RUNNER runs it. (exit code, output); after `timeout` seconds it is killed:
        (-1, "timed out ...")."""
        self.read(path)
        code, output = RUNNER.get()(dict(self.files), self.resolve(path), timeout)
        return code, output.strip()

    def toolbox(self, *, run: bool = True, run_timeout: float = 10.0) -> Toolbox:
        """read_file, list_files (read-only), write_file, edit_file and, if `run`, run_python
        (killed after `run_timeout` seconds; the other tools have no timeout)."""
        s = {"type": "string"}
        tools = [
            Tool("read_file", tr("Read a file of the workspace. Read-only."),
                 {"type": "object", "properties": {"path": s}, "required": ["path"]}, self.read,
                 read_only=True),
            Tool("list_files", tr("List the files of the workspace under a folder. Read-only."),
                 {"type": "object", "properties": {"path": s}}, self.listing, read_only=True),
            Tool("write_file", tr("Create or overwrite a file of the workspace."),
                 {"type": "object", "properties": {"path": s, "content": s},
                  "required": ["path", "content"]}, self.write),
            Tool("edit_file",
                 tr("Replace the text `old` by `new` in a file; fails if `old` is absent."),
                 {"type": "object", "properties": {"path": s, "old": s, "new": s},
                  "required": ["path", "old", "new"]},
                 self.edit),
        ]
        if run:
            tools.append(Tool("run_python",
                              tr("Run a Python file of the workspace (for example the tests) and "
                                 "return its exit code and output."),
                              {"type": "object", "properties": {"path": s}, "required": ["path"]},
                              lambda path: self._run_tool(path, run_timeout)))
        return Toolbox(tools)

    def _run_tool(self, path: str, timeout: float) -> str:
        code, output = self.run_python(path, timeout)
        if code != 0:
            raise RuntimeError(tr("exit code {code}").format(code=code) + f"\n{output}")
        return tr("exit code {code}").format(code=0) + f"\n{output}"

