"""Hostile submissions against the sandbox: tampering with results, orphans and fork bombs, signalling the grader,
reading secrets and other people's files. One batch grades them beside an honest neighbour; each case ends with
the right grade and a reason, nothing changed outside the scratch space, and no process left."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.notebooks import ASK, CHECKS, scores, write

from course.grading.sandbox.confinement import FIRST_UID

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]  # without a working bubblewrap they skip (conftest.py)
ISOLATION = None  # the strongest this machine allows; set "none" to watch these tests fail without a sandbox
ROOT = Path(__file__).resolve().parents[2]
SECRET = "grader-secret-NOT-A-REAL-KEY-test"
TOKEN = "course-hostile-sleeper"  # in the command line of every process a hostile submission starts


def function(body: str) -> str:
    """ask() that runs `body` first, then answers honestly."""
    return ASK.replace("    reply =", "\n".join("    " + line for line in body.splitlines()) + "\n    reply =")


def cases(root) -> dict:
    """name -> (the ask function, its points out of 2, words its failed checks show)."""
    sleeper = f"['sleep', '300'], env={{'X': '{TOKEN}'}}"
    return {
        "tamper": (function(f"""import glob, os, json
for path in glob.glob('{root}/**/*.json', recursive=True):
    try:
        open(path, 'w').write(json.dumps({{'score': 999, 'tests': []}}))
    except OSError:
        pass"""), 2, ""),
        "orphans": (function(f"""import os, subprocess
for _ in range(5):
    subprocess.Popen({sleeper}, start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvpe('sleep', ['sleep', '300'], {{'X': '{TOKEN}'}})
    os._exit(0)"""), 2, ""),
        "fork_bomb": ("""import os, subprocess
def ask(client, prompt):
    started = 0
    try:
        while started < 1000:
            subprocess.Popen(""" + sleeper + """, start_new_session=True)
            started += 1
    except OSError:
        pass
    return 'Paris' if started < 1000 else 'unbounded'
""", 1, "0 requests reached the API"),
        "signals_the_grader": (function("""import os, signal
for pid in [os.getppid()] + [p for p in os.listdir('/proc') if p.isdigit()]:
    if b'course\\x00grade' in open(f'/proc/{pid}/cmdline', 'rb').read() or pid == os.getppid():
        os.kill(int(pid), signal.SIGKILL)"""), 0, "PermissionError: [Errno 1]"),
        "reads_secrets": ("""import os
def ask(client, prompt):
    found = dict(os.environ)
    for pid in os.listdir('/proc'):
        try:
            found[pid] = open(f'/proc/{pid}/environ').read()
        except OSError:
            pass
    return repr(found)
""", 0, "returned \"{"),
        "reads_other_files": (f"""import glob
def ask(client, prompt):
    found = {{}}
    for path in glob.glob('{root}/**', recursive=True) + glob.glob('{CHECKS}/*'):
        try:
            found[path] = open(path).read()
        except OSError:
            pass
    return repr(found)
""", 0, "returned '{}'"),
        "writes_outside": (f"""import os
def ask(client, prompt):
    written = []
    for folder in ['/tmp', '/var/tmp', '/dev/shm', '{root}', '{CHECKS}', os.path.dirname(os.__file__), '..']:
        try:
            open(os.path.join(folder, 'planted.txt'), 'w').write('x')
            written.append(folder)
        except OSError:
            pass
    return repr(written)
""", 0, "returned '[]'"),
    }


def snapshot(folder) -> dict:
    """path -> (size, mtime) of every file under folder."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def leftovers() -> list[str]:
    """Processes a hostile submission started, or any process of a worker's uid, still alive."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = open(f"/proc/{pid}/status").read()
            environ = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        uid = int(status.split("\nUid:\t")[1].split()[0])
        if "\nState:\tZ" not in status and (uid >= FIRST_UID or TOKEN.encode() in environ):
            found.append(f"{pid} (uid {uid})")
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class graded by `python -m course grade` with a secret in its environment."""
    root = tmp_path_factory.mktemp("class")
    submissions = root / "submissions"
    submissions.mkdir()
    table = cases(root)
    paths = [write(submissions / "neighbour.ipynb", before="# the neighbour's own work")]
    paths += [write(submissions / f"{name}.ipynb", ask=ask) for name, (ask, _, _) in table.items()]
    out = root / "out"
    out.mkdir()
    (out / "unrelated.json").write_text('{"kept": true}')
    before = snapshot(root)
    env = {**os.environ, "ANTHROPIC_API_KEY": SECRET, "HOME": str(root / "home")}
    done = subprocess.run([sys.executable, "-m", "course", "grade", *paths, "--out", out, "--tests", CHECKS, "--jobs",
                           "2", "--timeout", "10", *(["--isolation", ISOLATION] if ISOLATION else [])],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    reports = {p.stem: json.loads((out / f"{p.stem}.json").read_text()) for p in paths}
    return table, reports, out, before, snapshot(root), leftovers()


@pytest.mark.parametrize("name", ["tamper", "orphans", "fork_bomb", "signals_the_grader", "reads_secrets",
                                  "reads_other_files", "writes_outside"])
def test_a_hostile_submission_gets_its_grade_with_a_reason_and_harms_nobody(graded, name):
    table, reports, _, _, _, _ = graded
    _, points, words = table[name]
    report = reports[name]
    assert scores(report) == {"ask": points, "lookup": 3}
    failed = [t["output"] for t in report["tests"] if t["status"] == "failed"]
    assert bool(failed) == (points < 2), failed
    assert not failed or any(words in f for f in failed), failed


def test_the_honest_neighbour_keeps_full_marks_and_the_output_folder_holds_only_the_graders_files(graded):
    _, reports, out, _, _, _ = graded
    assert reports["neighbour"]["score"] == 5
    assert json.loads((out / "unrelated.json").read_text()) == {"kept": True}
    assert "neighbour,5,5,2,3" in (out / "summary.csv").read_text().splitlines()


def test_nothing_outside_the_scratch_space_changed(graded):
    _, _, out, before, after, _ = graded
    outside = {p: v for p, v in after.items() if not p.startswith(str(out) + "/") and "/home/" not in p}
    assert outside == {p: v for p, v in before.items() if not p.startswith(str(out) + "/")}
    assert not [p for p in after if p.endswith("planted.txt")]
    elsewhere = ["/tmp", "/var/tmp", "/dev/shm", CHECKS, os.path.dirname(os.__file__)]  # where writes_outside tried
    assert not [d for d in elsewhere if Path(d, "planted.txt").exists()]


def test_no_process_a_submission_started_outlives_the_batch(graded):
    assert graded[5] == []


def test_no_secret_reaches_a_report(graded):
    _, reports, out, _, _, _ = graded
    everything = json.dumps(reports) + "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert SECRET not in everything
    assert "the neighbour's own work" not in everything and "def asks_once" not in everything
    assert "neighbour.json" not in reports["reads_other_files"]["tests"][1]["output"]

