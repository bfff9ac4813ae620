"""The steps of a task done with whatever tools the request declares, as a model does: Claude Code's
Glob, Bash, Read and Edit (absolute paths, in the working directory its system message names), the
course's list_files, run_python, read_file and edit_file, or a lone `bash` (mini-swe-agent's only
tool)."""
from __future__ import annotations

import re

from ..api import Conversation
from ..api.toolset import harness_text
from .base import call

# where Claude Code's system message says it runs
CWD = re.compile(r"Primary working directory: (\S+)")
NUMBERED = re.compile(r"^ *\d+\t", re.M)  # the line numbers of Claude Code's Read (cat -n)


class Hands:
    """The steps a task needs, done with the tools the request declares (Claude Code's, the
    course's, or bash)."""

    def __init__(self, c: Conversation):
        self.c = c
        found = CWD.search(harness_text(c.body))
        self.cwd = found.group(1).rstrip("/") + "/" if found else ""

    def can(self, *tools: str) -> bool:
        return all(self.c.tool(t) for t in tools)

    def run(self, script: str) -> dict | None:
        """Run a Python file; None when no declared tool can."""
        if self.can("Bash"):
            return call("Bash", command=f"python3 {script}", description=f"Run {script}")
        if self.can("run_python"):
            return call("run_python", path=script)
        return call("bash", command=f"python3 {script}") if self.can("bash") else None

    def read(self, path: str) -> dict | None:
        if self.can("Read"):
            return call("Read", file_path=self.cwd + path)
        if self.can("read_file"):
            return call("read_file", path=path)
        return call("bash", command=f"cat {path}") if self.can("bash") else None

    def edit(self, path: str, old: str, new: str) -> dict | None:
        if self.can("Edit"):
            return call("Edit", file_path=self.cwd + path, old_string=old, new_string=new)
        if self.can("edit_file"):
            return call("edit_file", path=path, old=old, new=new)
        # the one line, rewritten by Python from a quoted here-document: no shell quoting
        if self.can("bash"):
            return call("bash",
                        command=f"python3 - <<'EOF'\nimport pathlib\np = pathlib.Path({path!r})\n"
                                        f"p.write_text(p.read_text().replace({old!r}, "
                                        f"{new!r}))\nEOF")
        return None

    def list_python(self) -> dict | None:
        """List the Python files of the working directory."""
        if self.can("Glob"):
            return call("Glob", pattern="*.py")
        if self.can("list_files"):
            return call("list_files", path=".")
        if self.can("Bash"):
            return call("Bash", command="ls -1 *.py", description="List the Python files")
        return call("bash", command="ls -1 *.py") if self.can("bash") else None


def output(c: Conversation, result: dict) -> str:
    """A result's text, without the line numbers Claude Code's Read puts in front of each line."""
    return NUMBERED.sub("", c.result_text(result))
