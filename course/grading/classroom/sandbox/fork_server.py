"""The fork server as the grader sees it: `child.py` run once, confined, importing the SDK once,
then forking one worker per exercise and ending each worker with everything it started.

`child.py` is copied into the batch's scratch folder and run as `python -I -S -B` with a scrubbed
environment and a sys.path of links to the installed packages, where `course.grading` is a stand-in
whose `check()` does nothing (the checks and any hidden tests are not importable, and no path to
them is passed). How it is confined (bubblewrap, a uid per worker, or neither) is the batch's
Confinement.
"""
from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import site
import socket
import subprocess
import sys
import threading
from pathlib import Path

import course

from ....contract import child
from ..budget import Budget
from .confinement import FIRST_UID, Confinement
from .worker import Gone, Worker

FORK_TIMEOUT = 120.0  # seconds for the fork server to answer (it imports the SDK first)
# all of the grader's environment that student code gets
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


# course.grading as a worker sees it: `from course.grading import check` works, and no check is
# there
GRADING_STAND_IN = '''"""Stand-in for course.grading in a grading worker: the grader runs the checks, not this."""


def check(grade_id, fn, **options):
    """Does nothing here: the grader calls the function itself."""
'''  # noqa: E501


def site_view(root: Path) -> list[str]:
    """A folder of links to the installed packages, where course.grading is a stand-in without
    checks, and no .pth hooks run."""
    view = root / "site"
    (view / "course" / "grading").mkdir(parents=True)
    (view / "course" / "grading" / "__init__.py").write_text(GRADING_STAND_IN)
    for site_dir in site.getsitepackages():
        for entry in Path(site_dir).iterdir():
            name = entry.name
            skip = (
                name == "course"
                or name.startswith(("course-", "__editable__"))
                or name.endswith(".pth")
            )
            if not skip and not (view / name).exists():
                (view / name).symlink_to(entry)
    for entry in Path(course.__file__).parent.iterdir():
        if entry.name != "grading":
            (view / "course" / entry.name).symlink_to(entry)
    return [str(view)]


def user_tasks(uid: int) -> int:
    """Processes and threads of `uid` now (what RLIMIT_NPROC counts)."""
    count = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        if f"\nUid:\t{uid}\t" in status:
            count += int(status.split("\nThreads:\t", 1)[1].split()[0])
    return count


class ForkServer:
    """The fork server and the scratch folder that holds its script, the package view and the
    workers' folders (under `work/`: a tmpfs of `budget.disk` bytes under bubblewrap, where each
    worker makes its own)."""

    def __init__(self, root: Path, confinement: Confinement, private: list[Path], budget: Budget,
                 cgroup: Path | None = None):
        self.root, self.confinement, self.private, self.budget = root, confinement, private, budget
        # where each worker makes its cgroup (cpu_share)
        self.cgroup = cgroup if confinement.own_uid else None
        shutil.copy(child.__file__, root / "child.py")
        self.path = site_view(root)
        self.work = root / "work"
        self.work.mkdir(mode=0o755)  # each worker makes its folder, then becomes the folder's user
        self._lock = threading.Lock()
        self._count = 0
        # two batches at once never share a worker uid
        self.first_uid = FIRST_UID + secrets.randbelow(1 << 30)
        self._start()

    def _start(self) -> None:
        self.control, theirs = socket.socketpair()
        argv = [sys.executable, "-I", "-S", "-B", str(self.root / "child.py"), str(theirs.fileno()),
                *self.path]
        self.process = subprocess.Popen(
            self.confinement.command(argv, self.root, self.private, self.budget.disk,
                                     [self.cgroup] if self.cgroup else []),
            pass_fds=[theirs.fileno()],
            cwd=self.root, env={**ENV, "HOME": str(self.root)}, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        theirs.close()
        self.control.settimeout(FORK_TIMEOUT)
        self.replies = self.control.makefile("rb")

    def _fork(self) -> tuple[int, socket.socket]:
        """A new worker from the fork server: its pid, and our end of its socket."""
        ours, theirs = socket.socketpair()
        try:
            socket.send_fds(self.control, [b"F"], [theirs.fileno()])
            return int(self.replies.readline()), ours
        except (OSError, ValueError):
            ours.close()
            raise
        finally:
            theirs.close()

    def spawn(self) -> Worker:
        """A new worker, to be told where its folder is (setup); a dead fork server (killed by a
        student?) is restarted."""
        with self._lock:
            self._count += 1
            folder = self.work / f"w{self._count}"
            try:
                pid, sock = self._fork()
            except (OSError, ValueError):
                self.close()
                self._start()
                pid, sock = self._fork()
        uid = self.first_uid + self._count if self.confinement.own_uid else None
        return Worker(pid, sock, uid, folder, self)

    def setup(self, worker: Worker) -> dict:
        """The first message to a worker: the folder it makes and lives in, its uid and its limits;
        under bubblewrap as root, the size and files of its own tmpfs, in network, IPC and mount
        namespaces of its own."""
        limits = self.budget.worker_limits()
        if worker.uid is None:  # RLIMIT_NPROC counts every process of the grader's user
            limits["processes"] += user_tasks(os.getuid())
        space = (
            {"disk": self.budget.disk, "inodes": self.budget.inodes}
            if self.confinement.mode == "bwrap"
            else None
        )
        return {"dir": str(worker.folder), "limits": limits, "uid": worker.uid, "space": space,
                "cgroup": str(self.cgroup / worker.folder.name) if self.cgroup else None}

    def end(self, worker: Worker) -> None:
        """Ask the fork server to end `worker` and everything it started; returns when they are
        gone. A fork server that does not answer is killed, and with it (under bubblewrap)
        everything in its pid namespace."""
        with self._lock:
            try:
                uid = "-" if worker.uid is None else worker.uid
                self.control.sendall(f"K {worker.pid} {uid} {worker.folder}".encode())
                if self.replies.readline() == b"ended\n":
                    return
            except OSError:
                pass
            # outside a pid namespace the grader can reach it
            if not self.confinement.mode.startswith("bwrap"):
                with contextlib.suppress(OSError):
                    os.killpg(worker.pid, 9)
            self.close()
            self._start()

    def close(self) -> None:
        self.control.close()
        self.process.kill()
        self.process.wait()


class Runner:
    """run_python for one exercise's calls: a worker of its own, started on first use and confined
    as a worker is (its own uid, limits, hidden paths, no network), that runs each file with Python
    in a fresh folder holding the workspace's files; it is ended, with everything it started, when
    the exercise ends."""

    def __init__(self, server: ForkServer):
        self.server = server
        self.worker: Worker | None = None  # started on the first file it runs
        self._lock = threading.Lock()  # one file at a time (a student's threads may ask at once)

    def __call__(self, files: dict[str, str], path: str, timeout: float) -> tuple[int, str]:
        """(exit code, output) of `path`; -1 when it timed out or the runner died."""
        job = {"files": files, "path": path, "timeout": timeout}
        with self._lock:
            try:
                if self.worker is None:
                    self.worker = self.server.spawn()
                    job = {**self.server.setup(self.worker), "run": job}
                answer = self.worker.request(job, timeout + FORK_TIMEOUT)
            except Gone as e:
                self.worker = None
                return -1, str(e)
        if answer.get("code") == -1:
            return -1, f"timed out after {timeout:g} s"
        code = answer.get("code")
        return code if type(code) is int else -1, str(answer.get("output", ""))[
            : child.OUTPUT_CAP + 100
        ]

    def close(self) -> None:
        with self._lock:
            if self.worker:
                self.worker.kill()
                self.worker = None
