"""The grading machinery in one process: check() in a notebook, reports, the registry, reading
submissions."""
from __future__ import annotations

import csv
import io
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from hostile.notebooks import ASK, CHECKS, LOOKUP, notebook, solution, write

from course.contract.child import limit
from course.contract.exercise import Check, Exercise
from course.grading import check
from course.grading.classroom.budget import Budget
from course.grading.classroom.report_seals import ReportSeals
from course.grading.classroom.sandbox import confinement
from course.grading.classroom.sandbox.confinement import Confinement
from course.grading.classroom.submission import assignment, program, read
from course.grading.judging import registry as registry_module
from course.grading.judging.registry import Registry, load
from course.grading.marks.mark import Mark
from course.grading.marks.report import (
    gradebook_csv,
    results_json,
    summary_csv,
    text_report,
    write_json,
)


@pytest.fixture
def fixture_registry(monkeypatch) -> Registry:
    """The fixture assignment as the exercises check() knows."""
    registry = load(CHECKS, Registry({}, {}))
    monkeypatch.setattr(registry_module, "shipped", lambda: registry)
    return registry


def define(source: str, name: str):
    namespace: dict = {}
    exec(source, namespace)
    return namespace[name]


def printed(capsys, *args, **kwargs) -> str:
    check(*args, **kwargs)
    return capsys.readouterr().out


def test_check_passes_a_correct_function_and_prints_the_same_report_twice(fixture_registry, capsys):
    first = printed(capsys, "ask", define(ASK, "ask"))
    assert first == printed(capsys, "ask", define(ASK, "ask"))
    assert first.splitlines()[0] == "ask (Ask the model once): 2 of 2 checks passed, 2/2 points"
    assert first.count("  PASS  ") == 2 and "FAIL" not in first


def test_check_reads_the_wire_not_the_return_value(fixture_registry, capsys):
    out = printed(capsys, "ask", lambda client, prompt: "Paris")
    assert "1 of 2 checks passed" in out
    assert ("FAIL  sends one valid request with the prompt\n        why:  0 requests reached the "
            "API; expected 1") in out


def test_check_reports_the_tools_run_through_run_tool(fixture_registry, capsys):
    out = printed(capsys, "lookup",
                  define(LOOKUP.replace('"Mara Voss"', '"Henrik Dahl"'), "lookup"))
    assert "FAIL  runs the two searches through run_tool" in out
    assert "('search', {'query': 'Henrik Dahl'})" in out


def test_a_stub_fails_every_check_naming_its_task_and_check_never_raises(fixture_registry, capsys):
    def ask(client, prompt):
        raise NotImplementedError("Exercise ask: Ask the model once")

    out = printed(capsys, "ask", ask)
    assert out == ("ask (Ask the model once): 0 of 2 checks passed, 0/2 points\n"
                   "  not implemented yet (NotImplementedError: Exercise ask: Ask the model once)\n"
                   "  hint: replace the `raise NotImplementedError(...)` in the solution cell with "
                   "your code\n")


def test_check_returns_the_points_earned_for_nbgrader_to_read(fixture_registry, capsys):
    assert check("ask", define(ASK, "ask")) == 2
    assert check("ask", lambda client, prompt: "Paris") == 1
    assert check("ask", None) == 0 and check("asq", print) == 0


def test_in_a_notebook_the_report_says_what_the_number_under_it_is(
    fixture_registry, capsys, monkeypatch):
    """nbgrader reads the cell's value; a student sees an unlabelled Out[n] after the report (issue
    30 item 6)."""
    import IPython
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython, "get_ipython", lambda: object())  # a kernel
    monkeypatch.setattr(IPython.display, "display", shown.append)
    assert check("ask", define(ASK, "ask")) == 2
    assert len(shown) == 1  # the report
    assert capsys.readouterr().out.startswith("The number below (Out) is the points earned")


def test_an_endless_function_times_out_and_is_stopped(fixture_registry, capsys):
    def ask(client, prompt):
        while True:
            pass

    def calls() -> set[threading.Thread]:
        return {t for t in threading.enumerate() if t.name == "check-call"}

    # another test's abandoned call (one blocked in C, which no exception reaches) is not this one
    before = calls()
    out = printed(capsys, "ask", ask, timeout=0.5)
    assert out.count("timed out after 0.5 s") == 2
    for thread in calls() - before:
        thread.join(30)
    assert not calls() - before, "the endless call still runs"


def test_check_explains_an_unknown_exercise_or_a_missing_function(fixture_registry, capsys):
    assert printed(capsys, "asq", print) == ("There is no exercise 'asq'. Known exercises: ask, "
                                             "lookup.\n")
    assert "expected the function ask, got a NoneType" in printed(capsys, "ask", None)


def test_results_json_has_gradescopes_shape():
    results = [Mark("ask: sends", 1, 1),
               Mark("ask: returns", 0, 2, "returned 'Lyon'", "return the text", hidden=True)]
    report = results_json(results, 1.234, "x.ipynb: 1/3 points")
    assert report == {"score": 1, "execution_time": 1.23, "output": "x.ipynb: 1/3 points",
                      "visibility": "visible",
                      "tests": [{"name": "ask: sends", "score": 1, "max_score": 1,
                                 "status": "passed", "output": "passed", "visibility": "visible"},
                                {"name": "ask: returns", "score": 0, "max_score": 2,
                                 "status": "failed",
                                 "output": "returned 'Lyon'\nHint: return the text",
                                 "visibility": "after_published"}]}


def test_text_report_lists_each_check_with_why_and_hint():
    e = Exercise("ask", "ask", "Ask", [Check("a", print), Check("b", print, points=2)])
    text = text_report(e, [Mark("ask: a", 1, 1), Mark("ask: b", 0, 2, "why not", "try this")])
    assert text == ("ask (Ask): 1 of 2 checks passed, 1/3 points\n  PASS  a\n  FAIL  b\n"
                    "        why:  why not\n        hint: try this")


def test_a_long_why_wraps_at_words_under_its_first_word():
    e = Exercise("ask", "ask", "Ask", [Check("b", print)])
    reason = "with a model that asks for search: " + ("the return value differs from the "
                                                      "reference's ") * 4
    lines = text_report(e, [Mark("ask: b", 0, 1, reason)]).splitlines()[2:]
    assert len(lines) > 1 and all(len(line) <= 110 for line in lines)
    assert lines[0].startswith("        why:  with") and all(
        line.startswith(" " * 14 + "") for line in lines[1:])
    assert " ".join(line.strip() for line in lines).removeprefix("why:  ") == reason.strip()


def test_the_notebook_report_is_html_with_pass_and_fail_in_colour_and_its_text_beside_it():
    from course.grading.marks.report import Report
    from course.viz.style import ERROR, OK

    e = Exercise("ask", "ask", "Ask", [Check("a", print), Check("b", print, points=2)])
    report = Report(e, [Mark("ask: a", 1, 1),
                        Mark("ask: b", 0, 2, "returned <b>Lyon</b>", "try this")])
    html = report._repr_html_()
    # PASS green, FAIL red, points red
    assert f"background:{OK}" in html and f"background:{ERROR}" in html
    # a student's value is escaped
    assert "&lt;b&gt;Lyon&lt;/b&gt;" in html and "<b>Lyon" not in html
    # the points labelled, a hanging indent
    assert "1/3 points" in html and "text-indent:-4.5em" in html
    assert repr(report) == text_report(e, report.results)


def test_summary_csv_sums_each_exercise():
    a = results_json([Mark("ask: x", 1, 1), Mark("lookup: y", 2, 2), Mark("lookup: z", 0, 1, "no")],
                     0, "")
    b = results_json([Mark("ask: x", 0, 1, "no")], 0, "")
    rows = list(csv.reader(io.StringIO(summary_csv({"alice": a, "bob": b}))))
    assert rows == [["submission", "score", "max", "ask", "lookup"], ["alice", "3", "4", "1", "2"],
                    ["bob", "0", "1", "0", ""]]


def test_a_report_is_kept_only_if_the_grader_sealed_it_for_the_notebook_as_it_is(
    tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    path, report = tmp_path / "a.ipynb", tmp_path / "a.json"
    path.write_text("{}")
    sub = read(path)
    write_json(report, results_json([Mark("ask: x", 1, 1)], 0, ""))
    seals = ReportSeals(tmp_path)
    assert seals.trusted("a", sub, report) is None  # never signed: a student could have written it
    seals.record("a", sub, report)
    seals.save()
    assert ReportSeals(tmp_path).trusted("a", sub, report)["score"] == 1
    assert ReportSeals(tmp_path).trusted("b", sub, report) is None  # signed for another submission
    path.write_text('{"cells": []}')  # the student resubmitted
    assert ReportSeals(tmp_path).trusted("a", read(path), report) is None
    # a rewritten report
    report.write_text(report.read_text().replace('"score": 1', '"score": 999', 1))
    assert ReportSeals(tmp_path).trusted("a", sub, report) is None
    seals.forget()  # after a batch without isolation: nothing signed before is trusted
    report.write_text(report.read_text().replace('"score": 999', '"score": 1', 1))
    assert ReportSeals(tmp_path).trusted("a", sub, report) is None
    assert (
        oct((tmp_path / "home" / ".cache" / "course" / "grader.key").stat().st_mode & 0o777)
        == "0o600"
    )


def test_gradebook_has_one_row_per_student_one_column_per_exercise_and_a_total():
    a = results_json([Mark("ask: x", 1, 1), Mark("lookup: y", 2, 2)], 0, "")
    b = results_json([Mark("other: z", 0, 1, "no")], 0, "")
    rows = list(csv.reader(io.StringIO(gradebook_csv({"alice": {"nb1": a, "nb2": b},
                                                      "bob": {"nb1": b}}))))
    assert rows == [["student", "ask", "lookup", "other", "total"], ["alice", "1", "2", "0", "3"],
                    ["bob", "", "", "0", "0"]]


def test_hidden_checks_join_their_exercise_as_hidden():
    base = load(CHECKS, Registry({}, {}))
    merged = load(CHECKS, base)
    assert [len(e.checks) for e in merged.exercises.values()] == [4, 4]
    assert [c.hidden for c in merged.exercise("ask").checks] == [True] * 4
    # the base registry is not changed
    assert [len(e.checks) for e in base.exercises.values()] == [2, 2]


def test_the_program_is_every_code_cell_up_to_the_solution_without_check_cells(tmp_path):
    sub = read(write(tmp_path / "s.ipynb"))
    registry = load(CHECKS, Registry({}, {}))
    cells, problem = program(sub, registry.exercise("lookup"))
    assert problem == "" and cells == ["import json", ASK, LOOKUP]
    cells, _ = program(sub, registry.exercise("ask"))
    assert cells == ["import json", ASK]


def test_a_duplicated_solution_cell_the_last_copy_wins(tmp_path):
    nb = notebook()
    copy = solution("ask", "def ask(client, prompt):\n    return 'second'\n")
    nb.cells.insert(3, copy)
    cells, _ = program(read(write(tmp_path / "s.ipynb", nb)),
                       load(CHECKS, Registry({}, {})).exercise("ask"))
    assert cells[-2:] == [ASK, copy["source"]]


def test_the_assignment_comes_from_metadata_then_grade_ids_then_file_name(tmp_path):
    two = Registry({"ask": Exercise("ask", "ask", "", [], "solutions/01_a.ipynb"),
                    "other": Exercise("other", "other", "", [], "solutions/02_b.ipynb")}, {})
    nb = notebook()
    assert [e.grade_id for e in assignment(read(write(tmp_path / "x.ipynb", nb)), two)] == ["ask"]
    nb.metadata["course"] = {"assignment": "02_b"}
    assert [e.grade_id for e in assignment(read(write(tmp_path / "x.ipynb", nb)), two)] == ["other"]
    (tmp_path / "alice_02_b.ipynb").write_text("not json")
    assert [e.grade_id for e in assignment(read(tmp_path / "alice_02_b.ipynb"), two)] == ["other"]
    (tmp_path / "alice.ipynb").write_text("not json")
    assert [e.grade_id for e in assignment(read(tmp_path / "alice.ipynb"), two)] == ["ask", "other"]


def test_a_worker_drops_to_its_own_uid_when_asked_and_cannot_fork_past_its_limit(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("dropping to another user needs root (the Gradescope case)")
    uid = confinement.FIRST_UID
    pid = os.fork()
    if pid == 0:  # the worker's side: limits, then who am I, then too many processes
        try:
            os.chmod(tmp_path, 0o711)
            os.chdir(tmp_path)  # the worker's own folder is made here
            limit({"memory": 1 << 30, "cpu": 60, "file": 1 << 20, "processes": 3}, uid, "w1")
            if (os.getuid(), os.getgid(), os.getgroups()) != (uid, uid, []) or os.stat(
                "w1"
            ).st_uid != uid:
                os._exit(1)
            children = []
            try:
                for _ in range(5):
                    children.append(os.fork())
                    if children[-1] == 0:
                        time.sleep(5)
                        os._exit(0)
            except BlockingIOError:
                os._exit(0 if len(children) == 2 else 3)
            os._exit(4)
        except BaseException:
            os._exit(2)
    assert os.waitpid(pid, 0)[1] == 0


def test_the_strongest_confinement_the_machine_allows_is_chosen(monkeypatch):
    monkeypatch.setattr(confinement, "bwrap_works", lambda as_root: True)
    monkeypatch.setattr(confinement.os, "geteuid", lambda: 0)
    assert Confinement.detect().mode == "bwrap"
    monkeypatch.setattr(confinement, "bwrap_works", lambda as_root: False)
    monkeypatch.setattr(confinement, "world_readable", lambda path: True)
    assert Confinement.detect().mode == "uid"
    monkeypatch.setattr(confinement, "world_readable",
                        lambda path: "site-packages" not in str(path))
    assert Confinement.detect().mode == "none" and "partial" in Confinement.detect().warning
    monkeypatch.setattr(confinement.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(confinement, "bwrap_works", lambda as_root: not as_root)
    assert Confinement.detect().mode == "bwrap-user"
    with pytest.raises(ValueError, match="not possible here"):
        Confinement.detect("uid")


def test_what_workers_need_comes_back_read_only_inside_the_hidden_folders(monkeypatch, tmp_path):
    """A checkout and its venv under /tmp (a CI clone) or Python under root's home stay readable in
    the sandbox."""
    venv = tmp_path / "clone" / ".venv"
    monkeypatch.setattr(confinement, "needed", lambda: [venv, tmp_path / "clone" / "course"])
    argv = Confinement("bwrap").command(["python"], tmp_path / "scratch", [], 1 << 20)
    hide, back = argv.index("/tmp"), argv.index(str(venv))
    assert argv[hide - 1] == "--tmpfs" and argv[back - 1] == "--ro-bind" and back > hide
    assert argv[argv.index(str(tmp_path / "clone" / "course")) - 1] == "--ro-bind"


def test_the_venv_a_worker_starts_from_is_among_what_it_needs():
    assert Path(sys.prefix).resolve() in confinement.needed()


def test_the_budget_is_one_object_read_from_name_value_settings():
    budget = Budget.parse(["call=3", "memory=512M", "disk=1G", "cpu=30", "file=64K"])
    assert (budget.call, budget.memory, budget.disk, budget.cpu, budget.file) == (
        3.0,
        512 << 20,
        1 << 30,
        30,
        64 << 10,
    )
    assert budget.worker_limits() == {"memory": 512 << 20, "cpu": 30, "file": 64 << 10,
                                      "processes": 128}
    with pytest.raises(ValueError, match="NAME one of call, cell"):
        Budget.parse(["nope=1"])
    with pytest.raises(ValueError, match="more than 0"):
        Budget.parse(["cpu=0"])
