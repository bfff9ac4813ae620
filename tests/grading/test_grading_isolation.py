"""Hostile submissions against the sandbox: tampering with results, orphans and fork bombs,
signalling the grader, reading secrets and other people's files. One batch grades them beside an
honest neighbour; each case ends with the right grade and a reason, nothing changed outside the
scratch space, and no process left."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hostile.notebooks import ASK, CHECKS, scores, write

from course.grading.classroom.budget import Budget
from course.grading.classroom.sandbox.confinement import FIRST_UID, checkout

# without a working bubblewrap they skip (conftest.py)
pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
AS_ROOT = os.geteuid() == 0
# the strongest this machine allows; set "none" to watch these tests fail without a sandbox
ISOLATION = None
ROOT = Path(__file__).resolve().parents[2]
SECRET = "grader-secret-NOT-A-REAL-KEY-test"
TOKEN = "course-hostile-sleeper"  # in the command line of every process a hostile submission starts


def function(body: str) -> str:
    """ask() that runs `body` first, then answers honestly."""
    return ASK.replace("    reply =",
                       "\n".join("    " + line for line in body.splitlines()) + "\n    reply =")


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
""", 0, "returned '[]'"),  # noqa: E501
    }


def snapshot(folder) -> dict:
    """path -> (size, mtime) of every file under folder."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")
            if p.is_file()}


def survivors() -> tuple[list[str], list[str]]:
    """Processes still alive: (those a hostile submission started, those of any worker's uid)."""
    ours, workers = [], []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            environ = Path(f"/proc/{pid}/environ").read_bytes()
        except OSError:
            continue
        uid = int(status.split("\nUid:\t")[1].split()[0])
        if "\nState:\tZ" in status:
            continue
        if TOKEN.encode() in environ:
            ours.append(f"{pid} (uid {uid})")
        elif uid >= FIRST_UID:
            workers.append(f"{pid} (uid {uid})")
    return ours, workers


def leftovers(patience: float = 60.0) -> list[str]:
    """Processes a hostile submission started, or any process of a worker's uid, still alive. A
    worker's uid may be another batch's, running beside this one (another test file on the other
    pytest worker): those are looked at again until `patience` runs out, since a batch's workers
    end with it; a hostile submission's never do."""
    deadline = time.monotonic() + patience
    ours, workers = survivors()
    while workers and not ours and time.monotonic() < deadline:
        time.sleep(0.5)
        ours, workers = survivors()
    return ours + workers


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
    # a temporary folder deep inside /tmp, as pytest's own, beside the class (which a hostile
    # submission reads): the workers' folders are made in it
    tmp = tmp_path_factory.mktemp("grader-tmp")
    env = {**os.environ, "ANTHROPIC_API_KEY": SECRET, "HOME": str(root / "home"),
           "TMPDIR": str(tmp)}
    done = subprocess.run([sys.executable, "-m", "course", "grade", *paths, "--out", out, "--tests",
                           CHECKS, "--jobs",
                           "2", "--timeout", "10",
                           *(["--isolation", ISOLATION] if ISOLATION else [])],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    reports = {p.stem: json.loads((out / f"{p.stem}.json").read_text()) for p in paths}
    return table, reports, out, before, snapshot(root), leftovers()


@pytest.mark.parametrize("name",
                         ["tamper", "orphans", "fork_bomb", "signals_the_grader", "reads_secrets",
                                  "reads_other_files", "writes_outside"])
def test_a_hostile_submission_gets_its_grade_with_a_reason_and_harms_nobody(graded, name):
    table, reports, _, _, _, _ = graded
    _, points, words = table[name]
    report = reports[name]
    assert scores(report) == {"ask": points, "lookup": 3}
    failed = [t["output"] for t in report["tests"] if t["status"] == "failed"]
    assert bool(failed) == (points < 2), failed
    assert not failed or any(words in f for f in failed), failed


def test_the_honest_neighbour_keeps_full_marks_and_the_output_folder_holds_only_the_graders_files(
    graded):
    _, reports, out, _, _, _ = graded
    assert reports["neighbour"]["score"] == 5
    assert json.loads((out / "unrelated.json").read_text()) == {"kept": True}
    assert "neighbour,5,5,2,3" in (out / "summary.csv").read_text().splitlines()


def test_nothing_outside_the_scratch_space_changed(graded):
    _, _, out, before, after, _ = graded
    outside = {p: v for p,
               v in after.items() if not p.startswith(str(out) + "/") and "/home/" not in p}
    assert outside == {p: v for p, v in before.items() if not p.startswith(str(out) + "/")}
    assert not [p for p in after if p.endswith("planted.txt")]
    # where writes_outside tried
    elsewhere = ["/tmp", "/var/tmp", "/dev/shm", CHECKS, os.path.dirname(os.__file__)]
    assert not [d for d in elsewhere if Path(d, "planted.txt").exists()]


def test_no_process_a_submission_started_outlives_the_batch(graded):
    assert graded[5] == []


def test_no_secret_reaches_a_report(graded):
    _, reports, out, _, _, _ = graded
    everything = json.dumps(reports) + "".join(p.read_text() for p in out.rglob("*") if p.is_file())
    assert SECRET not in everything
    assert "the neighbour's own work" not in everything and "def asks_once" not in everything
    assert "neighbour.json" not in reports["reads_other_files"]["tests"][1]["output"]



# Round two: what code could do through the workspace tools' run_python and through the API's own
# connection.
# a --tests folder: `tools` (RUN_TOOL) and `probe` (CLIENT)
PROBES = Path(__file__).parent / "hostile" / "probes"
CONNECT = '''import socket


def connect(client):
    """A raw connection to the grader's API, the way the student's SDK client reaches it."""
    pool = client._client._transport._pool
    if getattr(pool, "_uds", None):
        s = socket.socket(socket.AF_UNIX)
        s.connect(pool._uds)
        return s
    return socket.create_connection((client.base_url.host, client.base_url.port))
'''
EVIL = '''import glob, json, os, subprocess
found = {{"uid": os.getuid(), "environs": [], "rewrote": []}}
for name, path in {{"key": {key!r}, "shadow": "/etc/shadow"}}.items():
    try:
        found[name] = open(path, "rb").read().hex()
    except OSError as e:
        found[name] = type(e).__name__
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        if {secret!r} in open(f"/proc/{{pid}}/environ").read():
            found["environs"].append(pid)
    except OSError:
        pass
for path in glob.glob({out!r} + "/**/*.json", recursive=True):
    try:
        open(path, "w").write(json.dumps({{"score": 12345, "tests": []}}))
        found["rewrote"].append(path)
    except OSError:
        pass
subprocess.Popen(["sleep", "300"], env={{"X": {token!r}}}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                 start_new_session=True)
print(json.dumps(found))
'''  # noqa: E501


def tools(script: str) -> str:
    """tools(run_tool): write `script` into the workspace, run it with run_python, return what it
    printed."""
    return f'''import json


def tools(run_tool):
    run_tool("write_file", {{"path": "evil.py", "content": {script!r}}})
    out = run_tool("run_python", {{"path": "evil.py"}}).split("\\n", 1)[1]
    return json.loads(out) if out.startswith("{{") else len(out)
'''


# Round three: two workers graded at once (the first two probes start together) meet by every way a
# shared network or IPC namespace allows: a TCP port on loopback, an abstract Unix socket, a SysV
# shared memory segment (which outlives its maker when the namespace is shared).
MEETING = 47213  # the TCP port and SysV key the two agree on
LISTENS = f'''import ctypes, socket, time


def probe(client):
    ctypes.CDLL(None).shmget({MEETING}, 1 << 20, 0o1666)  # IPC_CREAT, readable by all
    tcp = socket.create_server(("127.0.0.1", {MEETING}))
    unix = socket.socket(socket.AF_UNIX)
    unix.bind("\\0course-meeting")
    unix.listen()
    met = []
    for server in (tcp, unix):
        server.settimeout(4)
        try:
            server.accept()[0].close()
            met.append(server.family.name)
        except OSError:
            pass
    return met
'''
REACHES = f'''import ctypes, socket, time


def probe(client):
    met = {{}}
    deadline = time.monotonic() + 4
    while len(met) < 3 and time.monotonic() < deadline:
        if ctypes.CDLL(None).shmget({MEETING}, 0, 0) != -1:
            met["shm"] = True
        for family, address in ((socket.AF_INET, ("127.0.0.1", {MEETING})), (socket.AF_UNIX, "\\0course-meeting")):
            try:
                with socket.socket(family) as s:
                    s.connect(address)
                met[family.name] = True
            except OSError:
                pass
        time.sleep(0.05)
    return sorted(met)
'''  # noqa: E501
CPU_GROUP = '''import subprocess


def probe(client):
    def cpu(text):
        return [line.split(":", 2)[2] for line in text.splitlines() if "cpu" in line.split(":")[1].split(",")
                or line.startswith("0::")][0]

    spawned = subprocess.run(["cat", "/proc/self/cgroup"], capture_output=True, text=True, start_new_session=True)
    return [cpu(open("/proc/self/cgroup").read()), cpu(spawned.stdout)]
'''  # noqa: E501
MANY_FILES = '''def probe(client):
    made = 0
    try:
        for i in range(50_000):
            open(f"e{i}", "w").close()
            made += 1
    except OSError:
        pass
    return made
'''


def probes(root: Path, port: int) -> dict[str, str]:
    """name -> the notebook's graded function (tools or probe)."""
    key = str(root / "home" / ".cache" / "course" / "grader.key")
    return {
        "reads_the_checkout": f'''def probe(client):
    found = []
    for path in {[str(ROOT / "translations" / "ja" / "exercises" / "03_the_first_loop.md"), str(ROOT / "README.md"),
                  *(str(p / "HEAD") for p in checkout()[1:])]!r}:
        try:
            open(path, "rb").read()
            found.append(path)
        except OSError:
            pass
    return found
''',  # noqa: E501
        **{f"cpu_group_{n}": CPU_GROUP for n in "ab"},
        "neighbour_listens": LISTENS,
        "neighbour_reaches": REACHES,
        "many_files": MANY_FILES,
        "run_python_escapes": tools(EVIL.format(key=key, secret=SECRET, out=str(root / "out"),
                                                token=TOKEN)),
        "run_python_floods": tools("print('x' * 50_000_000)"),
        "huge_body": CONNECT + '''

def probe(client):
    s = connect(client)
    s.sendall(b"POST /v1/messages HTTP/1.1\\r\\nHost: grader\\r\\nContent-Length: 314572800\\r\\n\\r\\n")
    s.settimeout(5)
    try:
        return s.recv(100).decode(errors="replace").split("\\r\\n")[0]
    except TimeoutError:
        return "no answer"
''',  # noqa: E501
        "idle_connections": CONNECT + '''

def probe(client):
    import time
    held = []
    for _ in range(400):
        try:
            held.append(connect(client))
        except OSError:
            break
    time.sleep(2)
    still_open = 0
    for s in held:
        s.setblocking(False)
        try:
            still_open += s.recv(1) != b""
        except BlockingIOError:
            still_open += 1
        except OSError:
            pass
    return still_open
''',
        "loopback": f'''import socket


def probe(client):
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=3).close()
        return "reached"
    except OSError as e:
        return type(e).__name__
''',
        "reads_the_reference": f'''def probe(client):
    try:
        return len(open({str(ROOT / "solutions" / "03_the_first_loop.ipynb")!r}, "rb").read())
    except OSError as e:
        return type(e).__name__
''',
        "fills_scratch": '''def probe(client):
    written = 0
    try:
        for i in range(96):
            with open(f"f{i}", "wb") as f:
                f.write(b"x" * (4 << 20))
            written += 4
    except OSError:
        pass
    return written
''',
    }


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    """The probes graded by `python -m course grade` with a secret in its environment and a port
    open on loopback: (what each function returned, the isolation mode, processes left)."""
    from hostile.notebooks import solution
    from nbformat.v4 import new_notebook

    root = tmp_path_factory.mktemp("probes")
    listener = socket.create_server(("127.0.0.1", 0))
    table = probes(root, listener.getsockname()[1])
    (root / "submissions").mkdir()
    graded = {name: "tools" if "def tools(" in source else "probe" for name,
              source in table.items()}
    paths = [write(root / "submissions" / f"{name}.ipynb",
                   new_notebook(cells=[solution(graded[name], source)]))
             for name, source in table.items()]
    out = root / "out"
    out.mkdir()
    (out / "kept.json").write_text('{"kept": true}')
    env = {**os.environ, "ANTHROPIC_API_KEY": SECRET, "HOME": str(root / "home")}
    with listener:
        done = subprocess.run([sys.executable, "-m", "course", "grade", *paths, "--out", out,
                               "--tests", PROBES,
                               "--jobs", "2", "--timeout", "10",
                               *(["--isolation", ISOLATION] if ISOLATION else [])],
                              env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    shown = {}
    for p in paths:
        tests = json.loads((out / f"{p.stem}.json").read_text())["tests"]
        output = next(t["output"] for t in tests if t["name"].startswith(graded[p.stem] + ":"))
        shown[p.stem] = (
            json.loads(output.removeprefix("VALUE ")) if output.startswith("VALUE ") else output
        )
    mode = done.stderr.split("(isolation: ", 1)[1].split(")", 1)[0]
    return shown, mode, out, leftovers()


def test_code_run_with_run_python_is_confined_like_the_students_own(probed):
    shown, mode, out, left = probed
    found = shown["run_python_escapes"]
    assert isinstance(found, dict), found
    if AS_ROOT and mode in ("bwrap", "uid"):
        assert found["uid"] >= FIRST_UID and found["shadow"] == "PermissionError"
    if mode.startswith("bwrap") or AS_ROOT:
        # the seal key: hidden, or root's
        assert found["key"] in ("FileNotFoundError", "PermissionError")
        assert found["environs"] == []  # no process holding the grader's secret is readable
        assert found["rewrote"] == [] and json.loads((out / "kept.json").read_text()) == {
            "kept": True
        }
    assert left == []  # the sleeper it started is gone with the runner


def test_a_worker_cannot_read_the_reference_solutions_the_checks_compare_with(probed):
    shown, mode, out, left = probed
    if mode.startswith("bwrap"):
        # solutions/ is hidden: an empty folder
        assert shown["reads_the_reference"] == "FileNotFoundError"


def test_what_run_python_prints_is_capped(probed):
    assert probed[0]["run_python_floods"] <= 20_100


def test_the_api_refuses_a_huge_body_from_its_content_length_before_reading_it(probed):
    assert probed[0]["huge_body"].startswith("HTTP/1.1 413")


def test_a_worker_holds_a_bounded_number_of_connections_to_the_api(probed):
    assert probed[0]["idle_connections"] <= Budget().connections


def test_no_port_on_the_machine_is_reachable_from_a_worker_under_bubblewrap(probed):
    shown, mode, _, _ = probed
    assert (shown["loopback"] == "reached") == (not mode.startswith("bwrap")), shown["loopback"]


def test_a_worker_cannot_fill_the_disk_past_the_scratch_quota(probed):
    shown, mode, _, _ = probed
    if not mode.startswith("bwrap"):
        pytest.skip("a sized tmpfs needs bubblewrap; without it only the file size is limited")
    assert shown["fills_scratch"] <= Budget().disk >> 20


def test_two_workers_graded_at_once_cannot_meet_over_a_network_or_ipc(probed):
    """Each worker has its own network and IPC namespaces: no loopback port, abstract socket or SysV
    segment of one is another's (they were, with one namespace per batch)."""
    shown, mode, _, _ = probed
    if mode != "bwrap":
        pytest.skip("namespaces per worker need bubblewrap as root")
    assert shown["neighbour_reaches"] == [] and shown["neighbour_listens"] == []


def test_a_worker_cannot_make_more_files_than_its_inodes(probed):
    shown, mode, _, _ = probed
    if mode != "bwrap":
        pytest.skip("a tmpfs of its own per worker needs bubblewrap as root")
    assert shown["many_files"] < Budget().inodes, shown["many_files"]


def test_nothing_of_the_checkout_but_what_a_worker_needs_is_readable_wherever_it_lies(probed):
    """The translations hold every solution, and .git every commit: from a checkout outside /tmp and
    the home folders (this one, in CI a clone under /tmp), a worker read both."""
    shown, mode, _, _ = probed
    if not mode.startswith("bwrap"):
        pytest.skip("hiding folders needs bubblewrap")
    assert shown["reads_the_checkout"] == []


def test_each_worker_has_a_cpu_share_of_its_own_that_its_processes_inherit(probed):
    """A cgroup per worker (in the batch's): 60 busy processes of one student get one worker's
    share. Before, every worker was in the machine's cgroup, and each process had a share of its
    own."""
    shown, mode, _, _ = probed
    if not AS_ROOT or mode not in ("bwrap", "uid"):
        pytest.skip("cgroups need root")
    a, b = shown["cpu_group_a"], shown["cpu_group_b"]
    assert a[0] == a[1] and b[0] == b[1] and a[0] != b[0], (a, b)
    assert all(Path(group).parent.name.startswith("course-grade-") for group in (a[0], b[0]))


def test_a_killed_graders_cgroup_is_removed_by_the_next_batch():
    """A grader killed (SIGKILL: no cleanup) left its empty cgroup; the next batch removes those of
    dead graders."""
    from course.grading.classroom.sandbox import cpu_share

    gone = subprocess.Popen(["true"])  # a grader that is no more
    gone.wait()
    ours = cpu_share.batch_group(1)
    if ours is None:
        pytest.skip("no writable cpu cgroup here")
    stale = ours.parent / f"course-grade-{gone.pid}-0000"
    (stale / "w1").mkdir(parents=True)
    cpu_share.remove(ours)
    again = cpu_share.batch_group(1)
    cpu_share.remove(again)
    assert not stale.exists()
