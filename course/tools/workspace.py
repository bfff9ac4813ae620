"""A sandboxed workspace: virtual files the tools read and write, with checkpoints.

Paths are relative to the workspace root; anything that leaves it (absolute
paths, `..`) is refused. `checkpoint()` / `rewind()` restore the files, as
Claude Code's checkpoints do; effects outside the files (an e-mail sent) are
not undone: that is the point of the lesson on idempotency.
"""
from __future__ import annotations

import posixpath
import subprocess
import sys
import tempfile
from pathlib import Path

from .toolbox import Tool, Toolbox


class OutsideWorkspace(ValueError):
    pass


class Workspace:
    def __init__(self, files: dict[str, str] | None = None):
        self.files: dict[str, str] = {}
        self._checkpoints: list[dict[str, str]] = []
        for path, content in (files or {}).items():
            self.files[self.resolve(path)] = content

    @staticmethod
    def resolve(path: str) -> str:
        """The normalised relative path, or OutsideWorkspace."""
        if path.startswith(("/", "~")) or "\\" in path:
            raise OutsideWorkspace(f"{path!r} is outside the workspace")
        norm = posixpath.normpath(path)
        if norm == ".." or norm.startswith("../"):
            raise OutsideWorkspace(f"{path!r} is outside the workspace")
        return norm

    def read(self, path: str) -> str:
        p = self.resolve(path)
        if p not in self.files:
            raise FileNotFoundError(f"no such file: {path}")
        return self.files[p]

    def write(self, path: str, content: str) -> str:
        self.files[self.resolve(path)] = content
        return f"wrote {len(content)} characters to {path}"

    def edit(self, path: str, old: str, new: str) -> str:
        """Replace the one occurrence of `old`; fail, changing nothing, if it is absent."""
        text = self.read(path)
        if old not in text:
            raise ValueError(f"{old!r} not found in {path}")
        self.files[self.resolve(path)] = text.replace(old, new, 1)
        return f"edited {path}"

    def listing(self, path: str = ".") -> str:
        base = self.resolve(path)
        names = sorted(p for p in self.files if base == "." or p.startswith(base + "/"))
        return "\n".join(names) if names else "(empty)"

    def checkpoint(self) -> int:
        """Save the files; returns the checkpoint's number."""
        self._checkpoints.append(dict(self.files))
        return len(self._checkpoints) - 1

    def rewind(self, number: int = -1) -> None:
        """Restore the files saved by checkpoint `number` (the last one by default)."""
        self.files = dict(self._checkpoints[number])

    def run_python(self, path: str, timeout: float = 10.0) -> tuple[int, str]:
        """Run a workspace file with Python in a scratch folder holding a copy of the files."""
        self.read(path)
        with tempfile.TemporaryDirectory(prefix="course-sandbox-") as tmp:
            for rel, content in self.files.items():
                target = Path(tmp, rel)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(content, encoding="utf-8")
            try:
                done = subprocess.run([sys.executable, "-I", self.resolve(path)], cwd=tmp, capture_output=True,
                                      text=True, timeout=timeout, env={"PYTHONHASHSEED": "0"})
            except subprocess.TimeoutExpired:
                return -1, f"timed out after {timeout:g} s"
        return done.returncode, (done.stdout + done.stderr).replace(tmp + "/", "").strip()

    def toolbox(self, *, run: bool = True) -> Toolbox:
        """read_file, list_files (read-only), write_file, edit_file and, if `run`, run_python."""
        s = {"type": "string"}
        tools = [
            Tool("read_file", "Read a file of the workspace. Read-only.",
                 {"type": "object", "properties": {"path": s}, "required": ["path"]}, self.read, read_only=True),
            Tool("list_files", "List the files of the workspace under a folder. Read-only.",
                 {"type": "object", "properties": {"path": s}}, self.listing, read_only=True),
            Tool("write_file", "Create or overwrite a file of the workspace.",
                 {"type": "object", "properties": {"path": s, "content": s}, "required": ["path", "content"]}, self.write),
            Tool("edit_file", "Replace the text `old` by `new` in a file; fails if `old` is absent.",
                 {"type": "object", "properties": {"path": s, "old": s, "new": s}, "required": ["path", "old", "new"]},
                 self.edit),
        ]
        if run:
            tools.append(Tool("run_python", "Run a Python file of the workspace (for example the tests) and "
                              "return its exit code and output.",
                              {"type": "object", "properties": {"path": s}, "required": ["path"]}, self._run_tool))
        return Toolbox(tools)

    def _run_tool(self, path: str) -> str:
        code, output = self.run_python(path)
        if code != 0:
            raise RuntimeError(f"exit code {code}\n{output}")
        return f"exit code 0\n{output}"

