"""Processes for student code: a fork server that has imported the SDK once, and one worker per exercise.

The fork server is `child.py` copied into a private temp folder and run as `python -I -S -B` with a
scrubbed environment and a sys.path of links to the installed packages, where `course.grading` is a
stand-in whose `check()` does nothing (the checks and any hidden tests are not importable, and no
path to them is passed).
Each worker gets its own process group, temp folder, memory and file-size limits, and, when the
grader runs as root with world-readable packages (Gradescope), the uid of `nobody`.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import site
import socket
import subprocess
import sys
import threading
from pathlib import Path

import course

from . import child

MAX_REPLY = 8 << 20  # bytes of one reply from a worker; more is refused
FORK_TIMEOUT = 120.0  # seconds for the fork server to answer (it imports the SDK first)
NOBODY = 65534


class Gone(Exception):
    """The worker was killed or died; the message says how."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


# course.grading as a worker sees it: `from course.grading import check` works, and no check is there
GRADING_STAND_IN = '''"""Stand-in for course.grading in a grading worker: the grader runs the checks, not this process."""


def check(grade_id, fn, **options):
    """Does nothing here: the grader calls the function itself."""
'''


def site_view(root: Path) -> list[str]:
    """A folder of links to the installed packages, where course.grading is a stand-in without checks,
    and no .pth hooks run."""
    view = root / "site"
    (view / "course" / "grading").mkdir(parents=True)
    (view / "course" / "grading" / "__init__.py").write_text(GRADING_STAND_IN)
    for site_dir in site.getsitepackages():
        for entry in Path(site_dir).iterdir():
            name = entry.name
            skip = name == "course" or name.startswith(("course-", "__editable__")) or name.endswith(".pth")
            if not skip and not (view / name).exists():
                (view / name).symlink_to(entry)
    for entry in Path(course.__file__).parent.iterdir():
        if entry.name != "grading":
            (view / "course" / entry.name).symlink_to(entry)
    return [str(view)]


def world_readable(path: str | Path) -> bool:
    """Every folder on the way to `path` lets others in, and `path` lets others read."""
    p = Path(path).resolve()
    return all(os.stat(d).st_mode & 0o001 for d in p.parents) and bool(os.stat(p).st_mode & 0o004)


def worker_uid() -> int | None:
    """`nobody` when running as root and nobody can still read Python and the packages; else None."""
    if os.geteuid() != 0:
        return None
    needed = [sys.base_prefix, os.path.realpath(sys.executable), Path(course.__file__).parent, *site.getsitepackages()]
    return NOBODY if all(world_readable(p) for p in needed) else None


class Worker:
    """One forked worker: JSON lines over its socket, killed with its whole process group."""

    def __init__(self, pid: int, sock: socket.socket):
        self.pid, self.sock = pid, sock
        self.reader = sock.makefile("rb")

    def request(self, message: dict | None, timeout: float) -> dict:
        """Send a message (None: nothing) and wait for the worker's next one; raises Gone (after killing the
        worker) on a failure."""
        try:
            self.sock.settimeout(timeout)
            if message is not None:
                self.sock.sendall(json.dumps(message).encode() + b"\n")
            line = self.reader.readline(MAX_REPLY)
        except TimeoutError:
            self.kill()
            raise Gone("timed out", timed_out=True) from None
        except OSError as e:
            self.kill()
            raise Gone(f"the process ended ({e.strerror or e})") from None
        if not line:
            self.kill()
            raise Gone("the process ended during the call (os._exit()? a crash? the memory limit?)")
        if not line.endswith(b"\n"):
            self.kill()
            raise Gone(f"the reply was larger than {MAX_REPLY >> 20} MB")
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.kill()
            raise Gone("the process sent something that is not a result (did the code write to the grader's channel?)")
        return answer

    def kill(self) -> None:
        for kill in (os.killpg, os.kill):  # the group; the process itself if it had no time to make one
            try:
                kill(self.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        self.sock.close()


class Sandbox:
    """The fork server and the private folder that holds its script, the package view and worker folders."""

    def __init__(self, root: Path, memory: int, cpu: int):
        self.root, self.memory, self.cpu = root, memory, cpu
        shutil.copy(child.__file__, root / "child.py")
        self.path = site_view(root)
        self.uid = worker_uid()
        self._lock = threading.Lock()
        self._count = 0
        self._start()

    def _start(self) -> None:
        self.control, theirs = socket.socketpair()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(self.root)}
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", str(self.root / "child.py"), str(theirs.fileno()), *self.path],
            pass_fds=[theirs.fileno()], cwd=self.root, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        self.control.settimeout(FORK_TIMEOUT)
        self.replies = self.control.makefile("rb")

    def _fork(self) -> int:
        ours, theirs = socket.socketpair()
        try:
            socket.send_fds(self.control, [b"F"], [theirs.fileno()])
            return int(self.replies.readline()), ours
        except (OSError, ValueError):
            ours.close()
            raise
        finally:
            theirs.close()

    def spawn(self) -> tuple[Worker, Path]:
        """A new worker and its own empty folder; a dead fork server (killed by a student?) is restarted."""
        with self._lock:
            self._count += 1
            folder = self.root / f"w{self._count}"
            try:
                pid, sock = self._fork()
            except (OSError, ValueError):
                self.close()
                self._start()
                pid, sock = self._fork()
        folder.mkdir(mode=0o700)
        if self.uid is not None:
            os.chown(folder, self.uid, self.uid)
        return Worker(pid, sock), folder

    def setup(self, folder: Path) -> dict:
        """The first message to a worker: where it lives and its limits."""
        return {"dir": str(folder), "memory": self.memory, "cpu": self.cpu, "uid": self.uid}

    def close(self) -> None:
        self.control.close()
        self.process.kill()
        self.process.wait()
