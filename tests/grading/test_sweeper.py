"""The fork server's sweeper: every process of a worker's uid killed and what its folder holds
removed, by a small process of its own (forked before the SDK is imported), or by the fork server
itself once the sweeper is gone."""
from __future__ import annotations

import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import pytest

from course.contract import child

UID = 1_900_000_000 + os.getpid() % 1_000_000  # a uid no one else uses
pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="becoming another uid needs root")


def of_uid() -> list[int]:
    return child.processes(lambda status: f"\nUid:\t{UID}\t" in status)


@pytest.fixture
def work():
    """A folder the workers' folders lie in, which any uid may pass through (as the batch's scratch
    folder)."""
    made = Path(tempfile.mkdtemp(prefix="sweep-"))
    os.chmod(made, 0o755)
    yield made
    shutil.rmtree(made)


def worker_with_an_orphan(folder: Path) -> None:
    """A process of UID, and one it started in a session of its own, both sleeping; its folder holds
    a file."""
    folder.mkdir()
    (folder / "left").write_text("x")
    os.chown(folder, UID, UID)
    if os.fork() == 0:
        os.setresgid(UID, UID, UID)
        os.setresuid(UID, UID, UID)
        if os.fork() == 0:
            os.setsid()
            time.sleep(60)
            os._exit(0)
        time.sleep(60)
        os._exit(0)
    deadline = time.monotonic() + 10
    while len(of_uid()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(of_uid()) == 2


@pytest.fixture
def ignoring_children():
    """SIGCHLD ignored, as in the fork server: its children are reaped by the kernel."""
    saved = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    yield
    signal.signal(signal.SIGCHLD, saved)


def test_the_sweeper_kills_every_process_of_the_uid_and_empties_its_folder(work, ignoring_children):
    sweeper = child.Sweeper()
    worker_with_an_orphan(work / "w1")
    sweeper.sweep(UID, str(work / "w1"))
    assert of_uid() == [] and not (work / "w1" / "left").exists()
    # it did the work, and serves on
    assert sweeper.pid is not None and os.path.exists(f"/proc/{sweeper.pid}")
    sweeper.socket.close()


def test_without_its_sweeper_the_fork_server_sweeps_itself(work, ignoring_children):
    sweeper = child.Sweeper()
    os.kill(sweeper.pid, signal.SIGKILL)
    worker_with_an_orphan(work / "w1")
    sweeper.sweep(UID, str(work / "w1"))
    assert of_uid() == [] and not (work / "w1" / "left").exists()
    assert sweeper.pid is None
