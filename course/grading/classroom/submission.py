"""A submission: which notebooks a batch grades, which assignment each is, and the code defining
each graded function.

Read as plain JSON (not validated by nbformat), so a damaged notebook still gives what it can, and
an unreadable one gives a reason. A solution cell carries nbgrader metadata with its grade_id;
instructor check cells ({"grade": true, "solution": false, "locked": true}) are never run by the
grader.

Below the paths the instructor gives, nothing is trusted: no symbolic link is followed (a student's
folder, a subfolder or a notebook), only regular files are opened, the size is checked before a byte
is read, and no reason quotes the file. Whatever is wrong with one student's files is that student's
report, with the reason.
"""
from __future__ import annotations

import errno
import hashlib
import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from ...contract.exercise import Exercise
from ...i18n import LANGUAGES, tr
from ..judging.registry import Registry

MAX_BYTES = 32 << 20  # a bigger notebook is refused (outputs full of images, or an attack)
SKIPPED = ".ipynb_checkpoints"  # Jupyter's autosaves beside a student's notebooks


@dataclass
class Submission:
    path: Path
    cells: list[dict] = field(default_factory=list)
    metadata: dict = field(default_factory=dict)
    problem: str = ""  # why the notebook could not be read; empty when it could
    # sha256 of the bytes read (of the problem, when there were none): what a seal vouches for
    digest: str = ""


class Refused(Exception):
    """Why a file of a submission is not read; the message never quotes the file."""


def refused(path: Path, problem: str) -> Submission:
    return Submission(path, problem=problem, digest=hashlib.sha256(problem.encode()).hexdigest())


def entry(name: str, folder: int | None, directory: bool = False) -> int:
    """A descriptor for `name` in the open `folder` (None: a path the instructor gave, links
    allowed), refusing a symbolic link and, unless `directory`, anything but a regular file, before
    opening it."""
    follow = folder is None
    kind = os.stat(name, dir_fd=folder, follow_symlinks=follow).st_mode
    if stat.S_ISLNK(kind):
        raise Refused(
            tr("{name} is a symbolic link, which the grader does not follow").format(name=name))
    if not (stat.S_ISDIR(kind) if directory else stat.S_ISREG(kind)):
        raise Refused(tr("{name} is not a regular file").format(name=name) if not directory else
                      tr("{name} is not a folder").format(name=name))
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | (0 if follow else os.O_NOFOLLOW) | (
        os.O_DIRECTORY if directory else 0)
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError as e:  # swapped for a link or a folder since the check
        raise Refused(tr("{name} could not be opened ({error})").format(
            name=name, error=os.strerror(e.errno or errno.EIO))) from None
    if stat.S_IFMT(os.fstat(fd).st_mode) != stat.S_IFMT(kind):
        os.close(fd)
        raise Refused(tr("{name} changed while it was read").format(name=name))
    return fd


def contents(fd: int, name: str) -> bytes:
    """The bytes of an open regular file, refused when it holds more than MAX_BYTES (checked before
    reading)."""
    too_big = Refused(
        tr("the notebook is larger than {megabytes} MB").format(megabytes=MAX_BYTES >> 20))
    if os.fstat(fd).st_size > MAX_BYTES:
        raise too_big
    data = b""
    while chunk := os.read(fd, MAX_BYTES + 1 - len(data)):
        data += chunk
        if len(data) > MAX_BYTES:  # it grew while it was read
            raise too_big
    return data


def parse(path: Path, data: bytes) -> Submission:
    """A Submission from a notebook's bytes; the reason for bytes that are not a notebook names a
    place, not bytes."""
    digest = hashlib.sha256(data).hexdigest()
    try:
        nb = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        return Submission(path,
                          problem=tr("the notebook is not UTF-8 text (at byte {offset})").format(
            offset=e.start), digest=digest)
    except json.JSONDecodeError as e:
        return Submission(path, problem=tr("the notebook is not valid JSON (line {line}, column "
                                           "{column}); was it edited outside Jupyter?").format(
                                               line=e.lineno, column=e.colno),
                          digest=digest)
    except RecursionError:
        return Submission(path, problem=tr("the notebook is not valid JSON (nested too deeply)"),
                          digest=digest)
    except ValueError:  # Python's limit on the digits of an int read from text
        return Submission(path, problem=tr("the notebook holds a number of more than {digits} "
                                           "digits, which the grader does not read").format(
                                               digits=sys.get_int_max_str_digits()),
                          digest=digest)
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        return Submission(path, problem=tr("the file is not a Jupyter notebook (no list of cells)"),
                          digest=digest)
    cells = [{k: c[k] for k in ("cell_type", "source", "metadata") if k in c} for c in nb["cells"]
             if isinstance(c, dict)]  # outputs are never needed
    return Submission(path, cells, nb["metadata"] if isinstance(nb.get("metadata"), dict) else {},
                      digest=digest)


def read_at(folder: int | None, name: str, path: Path) -> Submission:
    """The notebook `name` in the open `folder` (None: `name` is a path the instructor gave), read
    safely."""
    try:
        fd = entry(name, folder)
    except FileNotFoundError:
        return refused(path, tr("the notebook could not be opened ({error})").format(
            error=os.strerror(errno.ENOENT)))
    except Refused as e:
        return refused(path, str(e))
    try:
        return parse(path, contents(fd, name))
    except Refused as e:
        return refused(path, str(e))
    except OSError as e:
        return refused(path, tr("the notebook could not be opened ({error})").format(
            error=os.strerror(e.errno or errno.EIO)))
    finally:
        os.close(fd)


def read(path: Path) -> Submission:
    """A notebook the instructor named by its path."""
    return read_at(None, str(path), path)


def listing(fd: int) -> list[os.DirEntry]:
    with os.scandir(fd) as entries:
        return sorted(entries, key=lambda e: e.name)


def notebooks(folder: int, name: str, path: Path, found: dict[str, list[Submission]],
              depth: int) -> None:
    """Add the notebooks of folder `name` (in the open `folder`) to `found`, by stem, and at depth 1
    those of its subfolders; what cannot be read (a link, a special file) is a refused Submission
    under its own name."""
    try:
        fd = entry(name, folder, directory=True)
    except (Refused, OSError) as e:
        reason = (
            str(e)
            if isinstance(e, Refused)
            else tr("{name} could not be opened ({error})").format(
                name=name, error=os.strerror(e.errno or errno.EIO)
            )
        )
        found.setdefault(name, []).append(refused(path, reason))
        return
    try:
        for item in listing(fd):
            if item.name.startswith("."):
                continue
            if item.name.endswith(".ipynb"):
                found.setdefault(item.name[:-len(".ipynb")], []).append(
                    read_at(fd, item.name, path / item.name))
            elif (
                depth == 1
                and item.name != SKIPPED
                and (item.is_symlink() or item.is_dir(follow_symlinks=False))
            ):
                # an assignment folder (or a link)
                notebooks(fd, item.name, path / item.name, found, depth + 1)
    finally:
        os.close(fd)


def collect(paths: list[Path]) -> dict[str, Submission]:
    """Report name -> submission, read: a notebook given by path, or lying in a folder given, is
    named by its stem; a class folder's `<student>/<notebook>.ipynb` and nbgrader's
    `<student>/<assignment>/<notebook>.ipynb` as `<student>/<stem>`.
    Two notebooks of one student with one name are that student's problem; two paths given with one
    name, the instructor's (ValueError)."""
    found: dict[str, list[Submission]] = {}
    for path in paths:
        if not path.is_dir():
            found.setdefault(path.stem, []).append(read(path))
            continue
        root = path.resolve()
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for item in listing(fd):
                loose = item.name.endswith(".ipynb") and not item.name.startswith(".")
                # a link or a special file: refused, by name
                if loose and not item.is_dir(follow_symlinks=False):
                    found.setdefault(Path(item.name).stem, []).append(
                        read_at(fd, item.name, root / item.name))
                    continue
                if item.name.startswith(".") or not (
                    item.is_dir(follow_symlinks=False) or item.is_symlink()
                ):
                    continue
                theirs: dict[str, list[Submission]] = {}
                notebooks(fd, item.name, root / item.name, theirs, 1)
                for stem, subs in theirs.items():
                    found.setdefault(f"{item.name}/{stem}", []).append(
                        subs[0] if len(subs) == 1 else twice(root / item.name, stem, subs))
        finally:
            os.close(fd)
    shared = {name: [str(s.path) for s in subs] for name, subs in found.items() if len(subs) > 1}
    if shared:
        raise ValueError(f"two submissions would share a report: {shared}")
    return {name: subs[0] for name, subs in found.items()}


def twice(folder: Path, stem: str, subs: list[Submission]) -> Submission:
    """One student's notebooks that share a name: graded as none, with the reason."""
    where = ", ".join(str(s.path.relative_to(folder)) for s in subs)
    return refused(subs[0].path,
                   tr("{count} notebooks are named {name}.ipynb ({where}); the grader cannot tell "
                                    "which one to grade: keep one").format(
                                        count=len(subs), name=stem, where=where))


def source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else str(s)


def nbgrader(cell: dict) -> dict:
    meta = cell.get("metadata")
    grader = meta.get("nbgrader") if isinstance(meta, dict) else None
    return grader if isinstance(grader, dict) else {}


def language(sub: Submission) -> str:
    """The language of the submission's feedback: its metadata's course.lang ("ja" or "en"),
    anything else English."""
    ours = sub.metadata.get("course")
    lang = ours.get("lang") if isinstance(ours, dict) else None
    return lang if lang in LANGUAGES else "en"


def solution_ids(sub: Submission) -> list[str]:
    return [str(nbgrader(c)["grade_id"]) for c in sub.cells
            if nbgrader(c).get("solution") and nbgrader(c).get("grade_id")]


def program(sub: Submission, exercise: Exercise) -> tuple[list[str] | None, str]:
    """(the code cells up to and including the exercise's solution cell, ""), or (None, why not)."""
    if sub.problem:
        return None, sub.problem
    where = [i for i, c in enumerate(sub.cells) if nbgrader(c).get("grade_id") == exercise.grade_id
             and nbgrader(c).get("solution") and c.get("cell_type") == "code"]
    if not where:
        return None, tr(
            "the notebook has no solution cell with grade_id '{grade_id}' (deleted, or "
            "its metadata changed?), so {function}() was not graded"
        ).format(grade_id=exercise.grade_id, function=exercise.function)
    # a duplicated cell: the last copy wins, as when run top to bottom
    cells = sub.cells[: where[-1] + 1]
    return [source(c) for c in cells if c.get("cell_type") == "code"
            and not nbgrader(c).get("grade")], ""


def assignment(sub: Submission, registry: Registry) -> list[Exercise]:
    """The exercises this submission answers: named in its metadata, else the group its grade_ids
    belong to, else the group named in its file name, else every exercise."""
    groups = registry.assignments()
    ours = sub.metadata.get("course")
    named = ours.get("assignment") if isinstance(ours, dict) else None
    if named in groups:
        return groups[named]
    present = set(solution_ids(sub))
    overlap = {g: len(present & {e.grade_id for e in ex}) for g, ex in groups.items()}
    best = max(overlap, key=overlap.__getitem__, default=None)
    if best is not None and overlap[best]:
        return groups[best]
    for name, ex in groups.items():
        if name in sub.path.stem:
            return ex
    return list(registry.exercises.values())
