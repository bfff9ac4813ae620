"""The venvs beside the course's own (nbgrader's, JupyterHub's, the agent frameworks'), made by uv
from its one shared cache: a tool, and where its kernels import the course, this checkout and the
course's dependencies less the Agent SDK (no test in those venvs runs the Claude Code CLI, and it is
385 MB). The checkout itself is installed under a lock, because installing it writes course.egg-info
into the checkout and two at once would write it over each other; everything else runs side by
side."""
from __future__ import annotations

import fcntl
import subprocess
import sys
import tomllib
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "build" / "egg-info.lock"
# in the course's venv (pyproject.toml's test extras; `make` starts with it)
UV = Path(sys.executable).with_name("uv")
LEFT_OUT = ("claude-agent-sdk",)  # of the course's dependencies, what a side venv never needs


def course_dependencies() -> list[str]:
    """The course's dependencies (pyproject.toml), less what a side venv never needs."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return [d for d in dependencies if not d.startswith(LEFT_OUT)]


@contextmanager
def locked(path: Path):
    """Hold an exclusive lock on `path` (made if missing) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def once(stamp: Path, version: str, build: Callable[[], object]) -> None:
    """Run `build` unless `stamp` (in the venv it marks) says `version` is built; under a lock
    beside that venv (uv clears the venv's folder), so a test that needs what make test is still
    building waits for that build instead of starting a second one over it."""
    with locked(stamp.parent.with_name(stamp.parent.name + ".lock")):
        if not stamp.exists() or stamp.read_text() != version:
            build()
            stamp.write_text(version)


def make_venv(home: Path, *requirements: str, with_course: bool = True, **run) -> Path:
    """A new venv at `home` holding `requirements` (and the course, editable, when `with_course`);
    its python. `run` goes to subprocess.run (where uv's output goes)."""
    subprocess.run([str(UV), "venv", "--quiet", "--clear", "--python", sys.executable, str(home)],
                   check=True, **run)
    python = home / "bin" / "python"
    install = [str(UV), "pip", "install", "--quiet", "--compile-bytecode", "--python", str(python)]
    subprocess.run([*install, *requirements, *(course_dependencies() if with_course else [])],
                   check=True, **run)
    if with_course:
        with locked(LOCK):
            subprocess.run([*install, "--no-deps", "-e", str(ROOT)], check=True, **run)
    return python
