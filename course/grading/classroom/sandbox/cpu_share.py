"""A CPU share per worker: a cgroup for the batch, in which each worker makes its own, of equal
weight.

The kernel then shares the CPU between workers, not between their processes: a student who starts 60
busy processes (each in a session of its own, so autogroup does not help) gets one worker's share,
and neither the honest neighbour graded beside them nor the grader computing reference outcomes
(outside the batch's cgroup, whose whole weight is that of `jobs` processes) is slowed much by it.
Needs root and a writable cpu controller (cgroup v1's /sys/fs/cgroup/cpu, or cgroup v2 with cpu
available); elsewhere there is no such share (docs/GRADING.md).
"""
from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

V1, V2 = Path("/sys/fs/cgroup/cpu"), Path("/sys/fs/cgroup")


def batch_group(jobs: int) -> Path | None:
    """A new cgroup for one batch's workers (each makes its own inside: see child.join), weighing as
    much as `jobs` processes beside the machine's others, or None where the grader cannot make
    one."""
    if os.geteuid() != 0:
        return None
    v2 = (V2 / "cgroup.controllers").is_file() and "cpu" in (
        V2 / "cgroup.controllers"
    ).read_text().split()
    for parent in [V1] if V1.is_dir() else [V2] if v2 else []:
        # left by a grader that was killed (named by its pid)
        for stale in parent.glob("course-grade-*"):
            if not Path(f"/proc/{stale.name.split('-')[2]}").exists():
                remove(stale)
        group = parent / f"course-grade-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            group.mkdir()
            if parent == V2:  # the workers' groups get the cpu controller
                (group / "cgroup.subtree_control").write_text("+cpu")
                (group / "cpu.weight").write_text(str(min(100 * jobs, 10_000)))
            else:
                (group / "cpu.shares").write_text(str(1024 * jobs))
            return group
        except OSError:
            remove(group)
    return None


def remove(group: Path | None) -> None:
    """Remove a batch's cgroup and its workers' (each is empty once its worker has ended)."""
    if group is None:
        return
    for worker in [p for p in group.iterdir() if p.is_dir()] if group.is_dir() else []:
        with contextlib.suppress(OSError):
            worker.rmdir()
    with contextlib.suppress(OSError):
        group.rmdir()
