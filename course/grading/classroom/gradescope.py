"""`python -m course gradescope`: an autograder bundle for Gradescope.

The zip holds the course's source (installed by setup.sh into /autograder/venv), run_autograder
(which grades /autograder/submission/*.ipynb into /autograder/results/results.json) and, with
`--tests DIR`, the instructor's hidden checks, readable by root only: on Gradescope the grader runs
as root and student code under bubblewrap or as a uid of its own (see docs/GRADING.md).
AUTOGRADER_ROOT and AUTOGRADER_PYTHON override /autograder and its venv's python, so the bundle can
be tried anywhere.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import course

SETUP = """#!/usr/bin/env bash
# Gradescope runs this once, building the image: Python 3.11+ and the course package in a venv.
set -euo pipefail
apt-get update
apt-get install -y python3 python3-venv bubblewrap
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    apt-get install -y python3.11 python3.11-venv
    PY=python3.11
else
    PY=python3
fi
$PY -m venv /autograder/venv
/autograder/venv/bin/pip install /autograder/source/course_src
# hidden checks and the reference solutions (the oracle): root only (student code runs as a uid of its own)
if [ -d /autograder/source/hidden ]; then chmod -R go-rwx /autograder/source/hidden; fi
chmod -R go-rwx /autograder/source/solutions
"""  # noqa: E501

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Gradescope runs this for every submission: grade its notebooks into results/results.json.
set -uo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PYTHON="${AUTOGRADER_PYTHON:-$ROOT/venv/bin/python}"
TESTS=()
if [ -d "$ROOT/source/hidden" ]; then TESTS=(--tests "$ROOT/source/hidden"); fi
mkdir -p "$ROOT/results"
cd "$ROOT/results"
export COURSE_SOLUTIONS="$ROOT/source/solutions"  # the reference solutions the checks compare with
# the folder, not its files by path: nothing in it is trusted (a link is not followed, a folder named *.ipynb is a
# folder), and --results counts one notebook per assignment
"$PYTHON" -m course grade "$ROOT/submission" "${TESTS[@]}" --out "$ROOT/results/graded" \\
    --results "$ROOT/results/results.json"
"""  # noqa: E501

SOURCE_FILES = ("pyproject.toml", "README.md")  # besides the course/ package


def _add(zf: zipfile.ZipFile, name: str, data: str | bytes, mode: int = 0o644) -> None:
    info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
    info.external_attr = (0o100000 | mode) << 16
    zf.writestr(info, data)


def build(out: Path, tests_dir: Path | None = None) -> Path:
    """Write the bundle to `out`; returns its path."""
    package = Path(course.__file__).resolve().parent
    project = package.parent
    if not (project / "pyproject.toml").is_file():
        raise FileNotFoundError(f"{project} has no pyproject.toml: build the bundle from the "
                                "course's source tree")
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        _add(zf, "setup.sh", SETUP, 0o755)
        _add(zf, "run_autograder", RUN_AUTOGRADER, 0o755)
        for name in SOURCE_FILES:
            _add(zf, f"course_src/{name}", (project / name).read_text())
        for path in sorted(package.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                _add(zf, f"course_src/course/{path.relative_to(package)}", path.read_bytes())
        for path in sorted((project / "solutions").glob("*.ipynb")):
            _add(zf, f"solutions/{path.name}", path.read_bytes(), 0o600)
        for path in sorted(tests_dir.glob("*.py")) if tests_dir else []:
            _add(zf, f"hidden/{path.name}", path.read_text(), 0o600)
    return out
