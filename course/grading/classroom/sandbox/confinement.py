"""How far student code is shut in: chosen once per batch from who the grader is and what the
machine allows.

- "bwrap" (the grader is root, namespaces work): the fork server runs under bubblewrap in its own
  pid, IPC and network namespaces (no network: the grader's API is a Unix socket bound in), with the
  whole filesystem read-only, /tmp, the home folder, the batch's submissions, hidden tests and
  output folder hidden, a fresh /proc, and the workers' folders on a sized tmpfs; each worker drops
  to a uid of its own.
- "uid" (root, no namespaces, Python readable by every user): each worker drops to a uid of its own;
  the network is the machine's.
- "bwrap-user" (not root, unprivileged namespaces work): bubblewrap as above, the workers keep the
  grader's uid.
- "none": workers are ordinary processes of the grader's user; `warning` says what that leaves open.
In every mode workers get a scrubbed environment, the Budget's rlimits (memory, CPU, file size,
processes), their own folder, reach the grader only through its Unix socket, and are ended with
everything they started before the grader writes a result.
"""
from __future__ import annotations

import os
import pwd
import shutil
import site
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import course

from ....i18n import deferred, tr

# workers run as uids from here up: users no account, file or other process has
FIRST_UID = 1_500_000_000
# all the fork
CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_KILL", "CAP_CHOWN", "CAP_SYS_ADMIN", "CAP_NET_ADMIN")
# server keeps of root: to drop to uids, kill them, give each its folder, namespaces and tmpfs, and
# bring its loopback up (a worker loses them all when it drops to its uid)
MODES = ("bwrap", "uid", "bwrap-user", "none")
HIDDEN_TMPFS = 1 << 20  # bytes the empty tmpfs over a hidden folder may hold

PARTIAL = {  # each translated where it is shown
    "uid": deferred(
        "isolation is partial (no namespaces here): every worker has a uid of its own, but the "
        "network is the machine's, so student code can reach any port listening on this machine "
        "(loopback included) and the internet if the machine can, and the workers' folders are on "
        "the grader's disk (each file limited, not their total)"),
    "bwrap-user": deferred(
        "isolation is partial: bubblewrap hides the grader's files and processes, but every worker "
        "runs as your user, so student code can signal or read another submission's worker while "
        "both run"),
    "none": deferred(
        "isolation is partial (bubblewrap does not work here, and student code cannot get a uid of "
        "its own): it runs as your user, so it can read and change any file you can (other "
        "submissions, hidden tests, the output folder), "
        "signal the grader, read other processes' environment, and reach any port of this machine "
        "and the network; results are rewritten from memory at the end and a later batch grades "
        "everything again, but grade untrusted classes as root or with bubblewrap"),
}


def world_readable(path: str | Path) -> bool:
    """Every folder on the way to `path` lets others in, and `path` lets others read."""
    p = Path(path).resolve()
    return all(os.stat(d).st_mode & 0o001 for d in p.parents) and bool(os.stat(p).st_mode & 0o004)


def needed() -> list[Path]:
    """What a worker must read: Python, its standard library, the venv and its packages, and the
    course."""
    return [Path(p).resolve() for p in (sys.base_prefix, os.path.realpath(sys.executable),
                                        sys.prefix,
                                        os.path.dirname(course.__file__), *site.getsitepackages())]


def checkout() -> list[Path]:
    """The source tree the course runs from, if it does (the translations and .git hold every
    solution), and its git folder (a worktree's lies elsewhere): hidden from workers but for what
    they need (an allow-list)."""
    tree = Path(course.__file__).resolve().parent.parent
    if not (tree / "pyproject.toml").is_file():
        return []
    found, git = [tree], tree / ".git"
    if git.is_file() and (text := git.read_text(errors="replace")).startswith("gitdir:"):
        private = Path(text.removeprefix("gitdir:").strip())
        common = (
            private / (private / "commondir").read_text().strip()
            if (private / "commondir").is_file()
            else private
        )
        found.append(common.resolve())
    return found


def bwrap_works(as_root: bool) -> bool:
    if not shutil.which("bwrap"):
        return False
    user = [] if as_root else ["--unshare-user"]
    try:
        return subprocess.run(["bwrap", *user, "--ro-bind", "/", "/", "--proc", "/proc",
                               "--unshare-pid",
                               "--die-with-parent", "--", "/bin/true"], capture_output=True,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@dataclass
class Confinement:
    mode: str

    @classmethod
    def detect(cls, mode: str | None = None) -> Confinement:
        """The strongest mode this machine allows (or `mode`, if it is allowed here)."""
        root = os.geteuid() == 0
        allowed = [m for m in MODES if m == "none" or (
            m == "bwrap" and root and bwrap_works(True)) or (
            m == "uid" and root and all(world_readable(p) for p in needed())) or (
            m == "bwrap-user" and not root and bwrap_works(False))]
        if mode is None:
            return cls(allowed[0])
        if mode not in allowed:
            raise ValueError(
                tr("isolation {mode!r} is not possible here (possible: {allowed})").format(
                mode=mode, allowed=tr(", ").join(allowed)))
        return cls(mode)

    @property
    def own_uid(self) -> bool:
        """Each worker gets a uid of its own (the grader is root)."""
        return self.mode in ("bwrap", "uid")

    @property
    def warning(self) -> str:
        return PARTIAL.get(self.mode, "")

    def command(self, argv: list[str], scratch: Path, private: list[Path], disk: int,
                writable: Sequence[Path] = ()) -> list[str]:
        """The fork server's command: `argv` as it is, or under bubblewrap with no network,
        `scratch` read-only but for its `work/` folder (a tmpfs of `disk` bytes: the workers'
        folders), `private` (submissions, hidden tests, output) hidden, and `writable` (the batch's
        cgroup) writable."""
        if self.mode not in ("bwrap", "bwrap-user"):
            return argv
        homes = [h for h in dict.fromkeys([Path(pwd.getpwuid(os.getuid()).pw_dir).resolve(),
                                           Path.home().resolve()])
                 if h != Path("/")]
        # what a hidden folder's tmpfs may hold (it is the grader's, 0755)
        small = ["--size", str(HIDDEN_TMPFS)]
        mounts = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *small, "--tmpfs",
                  "/dev/shm", *(a for p in writable for a in ("--bind", str(p), str(p)))]
        hidden = [Path("/tmp").resolve(), *homes]
        hidden += [p for p in checkout() if not any(p.is_relative_to(h) for h in hidden)]
        for base in hidden:
            mounts += [*small, "--tmpfs", str(base)]
            # what workers need inside a hidden folder comes back read-only: Python under root's
            # home (pyenv), a checkout's course package and its venv (the rest of the checkout stays
            # hidden, wherever it lies)
            inside = [p for p in needed() if p.is_relative_to(base)]
            folders = dict.fromkeys(d for p in inside for d in reversed(p.parents)
                                    if d.is_relative_to(base) and d != base)
            # else bwrap makes them 0700
            mounts += [a for d in folders for a in ("--perms", "0755", "--dir", str(d))]
            mounts += [a for p in inside for a in ("--ro-bind", str(p), str(p))]
        for p in [Path(p).resolve() for p in private
                  if not any(Path(p).resolve().is_relative_to(h) for h in hidden)]:
            if p.is_dir() and not any(n.is_relative_to(p) for n in needed()):
                # a folder holding what workers need is never hidden whole
                mounts += [*small, "--tmpfs", str(p)]
            elif p.is_file():
                mounts += ["--ro-bind", "/dev/null", str(p)]
        # scratch's folders inside a hidden one (TMPDIR a folder of /tmp, as pytest's) must let a
        # worker's uid pass
        parents = [d for d in reversed(scratch.parents)
                   if any(d.is_relative_to(h) and d != h for h in hidden)]
        mounts += [a for d in parents for a in ("--perms", "0755", "--dir", str(d))]
        mounts += ["--ro-bind", str(scratch), str(scratch),
                   "--size", str(disk), "--perms", "0755", "--tmpfs", str(scratch / "work")]
        rights = (
            ["--cap-drop", "ALL", *(a for c in CAPS for a in ("--cap-add", c))]
            if self.mode == "bwrap"
            else ["--unshare-user"]
        )
        return ["bwrap", *mounts, *rights, "--unshare-pid", "--unshare-ipc", "--unshare-net",
                "--die-with-parent", "--new-session", "--chdir", str(scratch), "--", *argv]
