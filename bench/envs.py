"""The venvs beside the course's own (nbgrader's, JupyterHub's): a tool and this checkout, as `pip install TOOL -e .`
installs them, in two steps so that `make test` can build several at once. The long one (the tool and the course's
dependencies) runs side by side; the short one (the checkout itself) takes a lock, because installing it writes
course.egg-info into the checkout and two at once would write it over each other."""
from __future__ import annotations

import fcntl
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "build" / "egg-info.lock"


def install_with_course(python: Path, *requirements: str, **run) -> None:
    """`requirements` and the course's dependencies into the venv of `python`, then this checkout (editable);
    `run` goes to subprocess.run (where pip's output goes)."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, *requirements, *dependencies], check=True, **run)
    LOCK.parent.mkdir(parents=True, exist_ok=True)
    with LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True, **run)
