"""The Budget: what one exercise of one submission may spend, the one object of limits from the
command line (`python -m course grade --limit NAME=VALUE`) through the batch and the fork server to
the worker that applies them."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ...i18n import tr


@dataclass(frozen=True)
class Budget:
    """What one exercise of one submission may spend."""

    call: float = 15.0  # seconds one call of the student's function may take
    cell: float = 10.0  # seconds one notebook cell may run before it is interrupted and skipped
    exercise: float = 120.0  # seconds for all the checks of one exercise
    # seconds of CPU each worker process may use (RLIMIT_CPU: each process it starts gets as many)
    cpu: int = 120
    # bytes of address space a worker may add to what the SDK needs (RLIMIT_AS)
    memory: int = 1 << 30
    file: int = 16 << 20  # bytes one file a worker writes may reach (RLIMIT_FSIZE)
    # bytes a worker's folder may hold (under bubblewrap: a sized tmpfs, its own as root)
    disk: int = 256 << 20
    # files and folders a worker's folder may hold (its own tmpfs, under bubblewrap as root)
    inodes: int = 10_000
    # processes and threads a worker's user may have (RLIMIT_NPROC: a fork bomb stops there), and
    # connections to the grader's API it may hold open at once: run_parallel's widest case runs 33
    # reads at once, each a thread and a call
    processes: int = 128
    connections: int = 40

    def worker_limits(self) -> dict:
        """The rlimits a worker sets on itself, as the fork server sends them."""
        return {"memory": self.memory, "cpu": self.cpu, "file": self.file,
                "processes": self.processes}

    @classmethod
    def parse(cls, settings: list[str]) -> Budget:
        """A Budget from `NAME=VALUE` settings (a number; bytes may end in K, M or G); ValueError
        names a bad one."""
        types = {f.name: f.type for f in dataclasses.fields(cls)}
        values: dict[str, Any] = {}  # each field's own type: int or float
        for setting in settings:
            name, _, value = setting.partition("=")
            if name not in types or not value:
                raise ValueError(tr("--limit {setting}: expected NAME=VALUE with NAME one of "
                                    "{names}").format(
                    setting=setting, names=tr(", ").join(types)))
            scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(value[-1].upper(), 1)
            number = float(value[:-1] if scale > 1 else value) * scale
            if number <= 0:
                raise ValueError(
                    tr("--limit {setting}: must be more than 0").format(setting=setting))
            values[name] = int(number) if types[name] in ("int", int) else number
        return cls(**values)
