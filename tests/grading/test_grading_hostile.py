"""Hostile submissions: each is graded, with a reason, and the untouched exercise of the same
notebook still gets its marks. One batch grades them all (the way a real batch meets them: side by
side)."""
from __future__ import annotations

import csv
import html
import http.client
import json
import os
import socket
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hostile.notebooks import ASK, CHECKS, notebook, scores, solution, write
from nbformat.v4 import new_code_cell, new_notebook

from course.api import LocalAPI
from course.contract.call import Call
from course.grading.classroom.batch import Budget, file_name, grade_batch
from course.grading.classroom.sandbox.confinement import Confinement
from course.grading.classroom.sandbox.wire import Wire
from course.grading.classroom.worker_context import MAX_WHY, RETRIES
from course.grading.judging.oracle import shown
from course.grading.judging.registry import Registry
from course.grading.marks.mark import Mark
from course.grading.marks.printable import printable
from course.grading.marks.report import results_json, write_json
from course.scenarios import get

pytestmark = pytest.mark.slow
OWN_UID = Confinement.detect().own_uid  # root, sandboxed: workers cannot signal the fork server

TOOL_RESULT_FIRST = [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x",
                                                   "content": "hi"}]}]
CREATE = ('client.messages.create(model="claude-haiku-4-5", max_tokens=100, '
          'messages=[{"role": "user", "content": prompt}])')

# name -> (cells of the notebook, points for ask out of 2, words its failed checks must show)
CASES = {
    "solved": (dict(), 2, ""),
    "endless_loop": (dict(ask="def ask(client, prompt):\n    while True:\n        pass\n"), 0,
                     "timed out after 3 s"),
    "os_exit": (dict(ask="import os\ndef ask(client, prompt):\n    os._exit(1)\n"), 0,
                "the process ended"),
    "sys_exit": (dict(ask="import sys\ndef ask(client, prompt):\n    sys.exit()\n"), 0,
                 "SystemExit"),
    "exit": (dict(ask="def ask(client, prompt):\n    exit()\n"), 0, "SystemExit"),
    "input": (dict(ask="def ask(client, prompt):\n    return input('the answer? ')\n"), 0,
              "EOFError"),
    "huge_output": (dict(ask=ASK.replace("    return",
                                         "    for _ in range(50):\n        print('x' * 10**6)\n    "
                                         "return")),
                    2, ""),
    "huge_value": (dict(ask=f"def ask(client, prompt):\n    {CREATE}\n    return 'Paris' * (4 << "
                            "20)\n"), 1,
                   "larger than 8 MB"),
    "memory_bomb": (dict(ask="def ask(client, prompt):\n    hog = bytearray(512 << 20)\n    return "
                             "'Paris'\n"), 0,
                    "MemoryError"),
    "custom_exc": (dict(before="get_ipython().set_custom_exc((Exception,), lambda *a, **k: None)",
                        ask="def ask(client, prompt):\n    raise ValueError('swallowed?')\n"), 0,
                   "ValueError: swallowed?"),
    "always_equal": (dict(ask=f"class Same:\n    def __eq__(self, other):\n        return True\n\n"
                              f"def ask(client, prompt):\n    {CREATE}\n    return Same()\n"), 1,
                     "cannot be sent as JSON"),
    "str_always_equal": (dict(ask="class Same(str):\n    def __eq__(self, other):\n        return "
                                  "True\n\n"
                                  f"def ask(client, prompt):\n    {CREATE}\n    return "
                                  "Same('Lyon')\n"), 1, "'Lyon'"),
    "patched_sdk": (dict(ask="import types\nimport anthropic.resources.messages as m\n"
                             "m.Messages.create = lambda self, **kw: types.SimpleNamespace(\n"
                             "    content=[types.SimpleNamespace(text='Paris')])\n" + ASK), 1,
                    "0 requests reached the API"),
    "patched_grader": (dict(before="try:\n    import course.grading.marks.mark as r\n"
                                   "    r.run_check = lambda *a: None\nexcept ImportError as "
                                   "e:\n    print(e)",
                            ask="def ask(client, prompt):\n    return 'Paris'\n"), 1,
                       "0 requests reached the API"),
    "kills_fork_server": (dict(ask="import os\ndef ask(client, prompt):\n    os.kill(os.getppid(), "
                                   "9)\n"
                                   "    return 'Paris'\n"),
                          *((0, "Operation not permitted") if OWN_UID
                            else (1, "0 requests reached the API"))),
    "malformed_conversation": (dict(ask="def ask(client, prompt):\n"
                                        "    return "
                                        "client.messages.create(model='claude-haiku-4-5', "
                                        "max_tokens=9, "
                                        f"messages={TOOL_RESULT_FIRST!r}).content[0].text\n"), 0,
                               "<400>"),
    "renamed_function": (dict(ask=ASK.replace("def ask(", "def ask_model(")), 0,
                         "does not define ask()"),
}

# name -> (cells of the notebook, the note every check of both exercises shows): each cell is
# skipped, nothing lost
SKIPPED = {
    "loop_in_a_cell": (dict(before="while True:\n    pass"), "cell 1 ran past 2 s and was skipped"),
    "loop_catching_the_interruption": (
        dict(
            before="while True:\n    try:\n        while "
            "True:\n            pass\n"
            "    except BaseException:\n        pass"
        ),
        "cell 1 ran past 2 s at line 1 and ignored the interruption",
    ),
    "os_exit_in_a_cell": (
        dict(before="import os\nos._exit(1)"),
        "cell 1 ended the process at line 2",
    ),
    "sys_exit_in_a_cell": (
        dict(before="import sys\nsys.exit(3)"),
        "cell 1 called sys.exit()/exit() (code 3) and was skipped",
    ),
    "exit_in_a_cell": (
        dict(before="exit()"),
        "cell 1 called sys.exit()/exit() (code None) and was skipped",
    ),
    "os_exit_after_the_function": (
        dict(ask=ASK + "\nimport os\nos._exit(1)\n"),
        "cell 2 ended the process at line 7",
    ),
    "loop_after_the_function": (
        dict(ask=ASK + "\nwhile True:\n    pass\n"),
        "cell 2 ran past 2 s and was skipped",
    ),
}


# a cell writing its own "ready" message to the grader's channel, with a 2 MB reason for a cell it
# says it skipped
FORGED_READY = """import json, os, socket, stat
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            with socket.fromfd(fd, socket.AF_UNIX, socket.SOCK_STREAM) as channel:
                channel.sendall(json.dumps({"ready": True, "errors": [], "cut": [
                    {"cell": 1, "why": "x" * 2_000_000}, *({"cell": n, "why": "y"} for n in range(2, 100_000))]}
                    ).encode() + b"\\n")
    except OSError:
        pass"""  # noqa: E501


def api_message(messages) -> str:
    """What the local API itself answers to a conversation (the expected 400 wording)."""
    body = json.dumps({"model": "claude-haiku-4-5", "max_tokens": 9, "messages": messages}).encode()
    reply = LocalAPI(get("one_shot").policy).handle("POST", "/v1/messages", {"x-api-key": "k"},
                                                    body)
    assert reply.status == 400
    return json.loads(reply.body)["error"]["message"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submissions")
    paths = [write(folder / f"{name}.ipynb", **cells) for name, (cells, _, _) in CASES.items()]
    paths += [write(folder / f"{name}.ipynb", **cells) for name, (cells, _) in SKIPPED.items()]
    missing = notebook()
    del missing.cells[2].metadata["nbgrader"]  # the ask solution cell lost its metadata
    paths.append(write(folder / "missing_cell.ipynb", missing))
    exits = notebook()
    exits.cells[1:1] = [new_code_cell("import os\nos._exit(1)") for _ in range(RETRIES + 1)]
    paths.append(write(folder / "exits_in_every_cell.ipynb", exits))
    (folder / "broken_json.ipynb").write_text('{"cells": [')
    paths.append(folder / "broken_json.ipynb")
    paths.append(write(folder / "forged_ready.ipynb", before=FORGED_READY))
    out = folder / "out"
    budget = Budget(call=3, cell=2, exercise=60, memory=256 << 20)
    reports = grade_batch(paths, out, CHECKS, jobs=2, budget=budget, registry=Registry({}, {}),
                          log=lambda line: None)
    return {p.stem: r for p, r in zip(paths, reports, strict=True)}, out


@pytest.mark.parametrize("name", CASES)
def test_hostile_ask_is_graded_with_a_reason_and_lookup_keeps_its_marks(graded, name):
    reports, out = graded
    _, points, words = CASES[name]
    report = reports[name]
    assert json.loads((out / f"{name}.json").read_text()) == report
    assert scores(report) == {"ask": points, "lookup": 3}
    assert report["score"] == points + 3
    failed = [t["output"] for t in report["tests"] if t["status"] == "failed"]
    words = words.replace("<400>", api_message(TOOL_RESULT_FIRST))
    assert all(words in f for f in failed), failed


def test_missing_solution_cell_names_its_grade_id(graded):
    report = graded[0]["missing_cell"]
    assert scores(report) == {"ask": 0, "lookup": 3}
    assert all("no solution cell with grade_id 'ask'" in t["output"]
               for t in report["tests"] if t["status"] == "failed")


def test_unreadable_notebook_scores_zero_out_of_everything_with_the_reason(graded):
    report = graded[0]["broken_json"]
    assert report["score"] == 0 and sum(t["max_score"] for t in report["tests"]) == 5
    assert "not valid JSON" in report["output"]
    assert all("not valid JSON" in t["output"] for t in report["tests"])


@pytest.mark.parametrize("name", SKIPPED)
def test_a_cell_that_hangs_or_ends_the_process_is_skipped_with_a_note_and_costs_nothing(
    graded, name
):
    report = graded[0][name]
    note = SKIPPED[name][1]
    assert scores(report) == {"ask": 2, "lookup": 3}
    assert all(
        t["status"] == "passed" and f"\nNote: {note}" in t["output"] for t in report["tests"]
    )
    assert f"ask: {note}" in report["output"] and f"lookup: {note}" in report["output"]


def test_cells_that_keep_ending_the_process_are_skipped_a_bounded_number_of_times(graded):
    report = graded[0]["exits_in_every_cell"]
    assert report["score"] == 0
    given_up = (
        f"cell {RETRIES + 1} ended the process at line 2 (os._exit()? a crash? the memory limit?), "
        f"after {RETRIES} cells were skipped for the same: given up"
    )
    assert all(given_up in t["output"] for t in report["tests"])


def test_what_a_worker_claims_in_its_ready_message_is_capped(graded):
    reports, out = graded
    assert (out / "forged_ready.json").stat().st_size < 20_000
    notes = [t["output"].split("\nNote: ", 1)[1] for t in reports["forged_ready"]["tests"]
             if "\nNote: " in t["output"]]
    assert notes and all(len(n) <= MAX_WHY + 100 for n in notes), notes


def test_summary_has_one_row_per_submission(graded):
    reports, out = graded
    rows = (out / "summary.csv").read_text().splitlines()
    assert rows[0] == "submission,score,max,ask,lookup"
    assert len(rows) == 1 + len(reports)
    assert "solved,5,5,2,3" in rows and "endless_loop,3,5,0,3" in rows


# A hostile class: what is wrong with one student's files or name is that student's report, never
# the class's.
ROOT = Path(__file__).resolve().parents[2]
# a --tests folder: `tools` gets RUN_TOOL on a workspace
PROBES = Path(__file__).parent / "hostile" / "probes"
KEY_BYTES = b"\x9f" * 32  # a seal key that is not UTF-8: an error quoting a byte would show 0x9f
FORMULA = '=HYPERLINK("example.com","x")'  # a folder name: no slash


# a folder name that rewrites the terminal's last line
FORGED = "\x1b[1A\x1b[2K\rFORGED alice: 12 of 12 points"
# a folder name that is not UTF-8, as Python reads it (a lone surrogate)
NOT_UTF8 = os.fsdecode(b"mallory\xff")
HUGE_INT = "9" * 5000  # more digits than Python reads from text by default


def round_three(submitted: Path) -> dict[str, tuple[float, str]]:
    """Round three's students who used to stop the whole class; student -> (total, words their
    feedback shows)."""
    def folder(name: str) -> Path:
        (submitted / name).mkdir()
        return submitted / name

    write(folder("raises_a_surrogate") / "fixture.ipynb",
          ask="def ask(client, prompt):\n    raise ValueError('\\ud800')\n")
    write(folder("returns_a_surrogate") / "fixture.ipynb",
          ask=ASK.replace("reply.content[0].text", "'\\udcff'"))
    write(folder(NOT_UTF8) / "fixture.ipynb")
    write(folder("not_utf8_notebook") / os.fsdecode(b"fixture\xff.ipynb"))
    huge = folder("huge_int") / "fixture.ipynb"
    write(huge).write_text(huge.read_text().rstrip().removesuffix("}") + f', "big": {HUGE_INT}}}\n')
    write(folder(FORGED) / "fixture.ipynb")
    return {"raises_a_surrogate": (3, "ValueError: \\ud800"), "returns_a_surrogate": (4, "\\udcff"),
            NOT_UTF8: (5, ""), "not_utf8_notebook": (5, ""), FORGED: (5, ""),
            "huge_int": (0, "the notebook holds a number of more than 4300 digits")}


def hostile_class(submitted: Path, home: Path) -> dict[str, tuple[float, str]]:
    """Lay out the class; student -> (total, words their feedback page must show)."""
    def solved(folder: Path, name: str = "fixture.ipynb") -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        return write(folder / name)

    key = home / ".cache" / "course" / "grader.key"
    key.parent.mkdir(parents=True)
    key.write_bytes(KEY_BYTES)
    alice = solved(submitted / "alice")
    (submitted / "links_to_alice").mkdir()
    (submitted / "links_to_alice" / "fixture.ipynb").symlink_to(alice)
    (submitted / "links_to_the_solution").mkdir()
    (submitted / "links_to_the_solution" / "03_the_first_loop.ipynb").symlink_to(
        ROOT / "solutions" / "03_the_first_loop.ipynb")
    (submitted / "folder_link").symlink_to(submitted / "alice")
    (submitted / "links_to_the_key").mkdir()
    (submitted / "links_to_the_key" / "fixture.ipynb").symlink_to(key)
    (submitted / "fifo").mkdir()
    os.mkfifo(submitted / "fifo" / "fixture.ipynb")
    (submitted / "folder_named_like_a_notebook" / "fixture.ipynb").mkdir(parents=True)
    solved(submitted / "twice" / "a1")
    solved(submitted / "twice" / "a2")
    for name in ("summary.csv", "gradebook.csv", ".seals.json"[1:], "new\nline", FORMULA, "-1+1",
                 "@SUM(A1)"):
        solved(submitted / name)
    refused = {"links_to_alice": "fixture.ipynb is a symbolic link, which the grader does not "
                                 "follow",
               "links_to_the_solution": "03_the_first_loop.ipynb is a symbolic link",
               "folder_link": "folder_link is a symbolic link",
               "links_to_the_key": "fixture.ipynb is a symbolic link",
               "fifo": "fixture.ipynb is not a regular file",
               "folder_named_like_a_notebook": "fixture.ipynb is not a regular file",
               "twice": "2 notebooks are named fixture.ipynb (a1/fixture.ipynb, a2/fixture.ipynb)"}
    solved_names = ["alice", "summary.csv", "gradebook.csv", "seals.json", "new\nline", FORMULA,
                    "-1+1", "@SUM(A1)"]
    return {**{name: (5, "") for name in solved_names},
            **{name: (0, why) for name, why in refused.items()}, **round_three(submitted)}


@pytest.fixture(scope="module")
def hostile_class_graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile_class")
    expected = hostile_class(root / "submitted", root / "home")
    out = root / "out"
    done = subprocess.run([sys.executable, "-m", "course", "grade", root / "submitted", "--out",
                           out, "--tests", CHECKS,
                           "--jobs", "2", "--timeout", "10"],
                          env={**os.environ, "HOME": str(root / "home")},
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with (out / "gradebook.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    return expected, out, rows, done.stderr


def test_every_student_of_a_hostile_class_gets_a_row_in_the_gradebook_and_a_feedback_page(
    hostile_class_graded):
    expected, out, rows, _ = hostile_class_graded
    totals = {row[0].removeprefix("'"): float(row[-1]) for row in rows[1:]}
    assert totals == {printable(student): total for student, (total, _) in expected.items()}
    assert all((out / file_name(student) / "feedback.html").is_file() for student in expected)


@pytest.mark.parametrize("student", ["raises_a_surrogate", "returns_a_surrogate", "huge_int"])
def test_a_student_who_used_to_stop_the_class_gets_a_grade_with_the_reason(
    hostile_class_graded, student):
    expected, out, _, _ = hostile_class_graded
    report = json.loads((out / file_name(student) / "fixture.json").read_text(encoding="utf-8"))
    assert any(expected[student][1] in text for text in [report["output"],
                                                         *(t["output"] for t in report["tests"])])


def test_a_name_that_is_not_utf8_is_shown_by_its_bytes(hostile_class_graded):
    _, out, _, log = hostile_class_graded
    assert json.loads((out / "mallory%FF" / "fixture.json").read_text())["score"] == 5
    assert json.loads((out / "not_utf8_notebook" / "fixture%FF.json").read_text())["score"] == 5
    assert (
        "mallory\\udcff" in log
        and "mallory\\udcff" in (out / "mallory%FF" / "feedback.html").read_text()
    )


def test_no_line_the_grader_prints_holds_a_control_character(hostile_class_graded):
    _, out, _, log = hostile_class_graded
    assert not [line for line in log.splitlines() if not line.isprintable()]
    assert not [line for line in log.splitlines() if line.startswith("FORGED")]
    assert printable(FORGED) in log
    assert all(c.isprintable() for path in out.glob("*.csv") for c in path.read_text() if c != "\n")


@pytest.mark.parametrize("student", ["links_to_alice", "links_to_the_solution", "folder_link",
                                     "links_to_the_key",
                                     "fifo", "folder_named_like_a_notebook", "twice"])
def test_a_students_unreadable_submission_is_their_zero_with_the_reason(
    hostile_class_graded, student):
    expected, out, _, _ = hostile_class_graded
    feedback = (out / file_name(student) / "feedback.html").read_text()
    assert expected[student][1].replace("\n", " ") in html.unescape(feedback)


def test_no_byte_of_a_file_a_link_points_at_reaches_a_report(hostile_class_graded):
    _, out, _, _ = hostile_class_graded
    everything = "".join(p.read_text(errors="replace") for p in out.rglob("*") if p.is_file())
    assert "0x9f" not in everything and "decode byte" not in everything


def test_student_names_never_collide_with_the_graders_files(hostile_class_graded):
    _, out, rows, _ = hostile_class_graded
    assert (out / "summary.csv").is_file() and (out / "gradebook.csv").is_file()
    assert json.loads((out / "summary%2Ecsv" / "fixture.json").read_text())["score"] == 5
    assert rows[0][0] == "student" and len(rows) == 1 + len(hostile_class_graded[0])


def test_no_cell_of_the_gradebook_or_the_summary_starts_a_formula(hostile_class_graded):
    _, out, rows, _ = hostile_class_graded
    with (out / "summary.csv").open(newline="") as f:
        cells = [c for row in [*rows, *csv.reader(f)] for c in row]
    assert not [c for c in cells if c.startswith(("=", "+", "-", "@", "\t", "\r"))]
    assert "'" + FORMULA in cells and "'-1+1" in cells


def test_a_report_name_becomes_file_names_no_grader_file_has_and_no_other_name_gets():
    names = ["summary.csv", "gradebook.csv", ".seals.json", "..", ".", "feedback.html", "x.tmp",
             "a%2Eb", "a.b", "new\nline", FORMULA, "学生", "é" * 200, "é" * 201]
    files = [file_name(n) for n in names]
    assert len(set(files)) == len(names)
    assert not [f for f in files if f.startswith(".") or "/" in f
                or f.endswith((".csv", ".json", ".html", ".tmp"))]
    assert (
        file_name("alice") == "alice" and file_name("学生") == "学生" and file_name("a.b") == "a.b"
    )
    assert all(len(f.encode()) <= 200 for f in files)


def test_no_request_a_worker_sends_reaches_a_subprocess_of_the_grader(tmp_path, monkeypatch):
    """run_python through the grader's workspace tools: the file runs (in the sandbox), yet the
    grader's process starts nothing but the fork server (and the probe of whether bubblewrap
    works)."""
    started = []
    popen = subprocess.Popen.__init__

    def spy(self, args, *more, **options):
        started.append([str(a) for a in args])
        popen(self, args, *more, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    tools = '''def tools(run_tool):
    run_tool("write_file", {"path": "evil.py", "content": "import os; print('ran as', os.getuid())"})
    return run_tool("run_python", {"path": "evil.py"})
'''  # noqa: E501
    path = write(tmp_path / "probes.ipynb", new_notebook(cells=[solution("tools", tools)]))
    report, = grade_batch([path], tmp_path / "out", PROBES, jobs=1, registry=Registry({}, {}),
                          log=lambda line: None)
    assert "VALUE \"exit code 0\\nran as " in report["tests"][0]["output"]
    assert started and all(argv[-1] == "/bin/true" or any(a.endswith("child.py") for a in argv)
                           for argv in started)


def test_a_returned_lone_surrogate_reaches_the_report_escaped(tmp_path):
    """The course's checks show a returned value as JSON (oracle.shown), where a lone surrogate
    stays raw: the report escapes it rather than fail to encode it (which stopped the class)."""
    mark = Mark("ask: returns the answer", 0, 1,
                f"the return value: yours {shown(chr(0xdcff))}, the reference's 1")
    write_json(tmp_path / "r.json", results_json([mark], 0.5, f"{chr(0xd800)}: 0/1 points"))
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["tests"][0]["output"] == "the return value: yours '\\udcff', the reference's 1"
    assert report["output"] == "\\ud800: 0/1 points"


def test_a_request_of_millions_of_objects_is_refused_before_it_is_parsed(tmp_path):
    """Four 6 MB bodies of 2 million empty objects each (under the 32 MB cap) cost the grader no
    Python objects: the wire counts objects and depth on the bytes and answers 400 (parsed, they
    took 2.26 GB)."""
    body = b'{"model": "claude-haiku-4-5", "max_tokens": 9, "messages": [' + b",".join(
        [b"{}"] * 2_000_000) + b"]}"
    deep = (
        b'{"model": "claude-haiku-4-5", "max_tokens": 9, "messages": '
        + b"[" * 900
        + b"]" * 900
        + b"}"
    )
    with Wire(tmp_path / "api.sock", 16) as wire:
        token = wire.router.open(Call(get("one_shot"), (), {}))
        tracemalloc.start()
        try:
            answers = [unix_post(tmp_path / "api.sock", f"/call/{token}/v1/messages", b)
                       for b in [body] * 4 + [deep]]
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert [status for status, _ in answers] == [400] * 5
    assert "more than 100000 JSON objects and arrays" in answers[0][1]
    assert "more than 256 deep" in answers[-1][1]
    assert peak < 100 << 20, f"{peak >> 20} MB"


def unix_post(socket_path: Path, path: str, body: bytes) -> tuple[int, str]:
    """POST `body` to the grader's API on its Unix socket: (status, body)."""
    class Connection(http.client.HTTPConnection):
        def connect(self):
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.connect(str(socket_path))

    connection = Connection("grader", timeout=60)
    try:
        connection.request("POST", path, body,
                           {"content-type": "application/json", "x-api-key": "k"})
        reply = connection.getresponse()
        return reply.status, reply.read().decode()
    finally:
        connection.close()
