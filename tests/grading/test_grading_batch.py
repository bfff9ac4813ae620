"""The batch grader end to end: the command line, resuming a killed batch, what student code can
see."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hostile.notebooks import ASK, CHECKS, solution, write

from course.contract.exercise import Check, Exercise, Outcome
from course.grading.classroom.batch import Budget, grade_batch
from course.grading.classroom.sandbox.confinement import Confinement
from course.grading.judging import oracle
from course.grading.judging.notebook_context import NotebookContext
from course.grading.judging.registry import Registry, shipped
from course.grading.marks.mark import run_exercise

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
HANGING_ASK = ASK.replace("    reply =", "    import time\n    time.sleep(3600)\n    reply =")


def course(*args) -> subprocess.CompletedProcess:
    """Run `python -m course ARGS`; if it hangs, fail with every thread's stack (faulthandler on
    SIGABRT)."""
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    process = subprocess.Popen([sys.executable, "-m", "course", *map(str, args)],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    try:
        stdout, stderr = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)
        pytest.fail(f"python -m course {' '.join(map(str, args))} "
                    f"hung:\n{process.communicate()[1]}")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def reports(out: Path) -> dict[str, float]:
    """stem -> modification time of each report written so far."""
    return {p.stem: p.stat().st_mtime_ns for p in out.glob("*.json") if not p.name.startswith(".")}


def sealed(out: Path) -> set[str]:
    """The reports a resumed batch would keep: those whose seal the batch has saved (its last step
    for each)."""
    try:
        return set(json.loads((out / ".seals.json").read_text()))
    except (OSError, ValueError):  # not saved yet
        return set()


def test_a_batch_killed_half_way_grades_only_what_is_missing_when_started_again(tmp_path):
    # the first student's notebook is graded at once; the others' calls hang, so the batch is killed
    # after exactly one report, once it is sealed; they are then solved as the first is, so that the
    # batch started again grades them
    paths = [write(tmp_path / f"student{i}.ipynb", ask=ASK if i == 0 else HANGING_ASK)
             for i in range(6)]
    out = tmp_path / "out"
    batch = subprocess.Popen([sys.executable, "-m", "course", "grade", *paths, "--out", out,
                              "--tests", CHECKS,
                              "--jobs", "1"], cwd=ROOT, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    deadline = time.monotonic() + 300
    while not sealed(out) and time.monotonic() < deadline and batch.poll() is None:
        time.sleep(0.05)
    os.killpg(batch.pid, signal.SIGKILL)
    batch.wait()
    before = reports(out)
    assert set(before) == sealed(out) == {"student0"}, ("kill the batch once the first report is "
                                                        "sealed")
    assert json.loads((out / "student0.json").read_text())["score"] == 5
    for path in paths[1:]:
        write(path)

    again = course("grade", *paths, "--out", out, "--tests", CHECKS, "--results",
                   tmp_path / "results.json")
    assert again.returncode == 0, again.stderr
    strongest = Confinement.detect()  # bwrap for a root grader with bubblewrap
    assert f"(isolation: {strongest.mode})" in again.stderr.splitlines()[0]
    assert ("warning" in again.stderr) == bool(strongest.warning)
    assert f"{len(paths)} submissions: 1 already graded, {len(paths) - 1} to grade" in again.stderr
    after = reports(out)
    assert set(after) == {p.stem for p in paths}
    assert {s: after[s] for s in before} == before  # kept, not graded again
    # one Gradescope submission: each assignment once
    merged = json.loads((tmp_path / "results.json").read_text())
    assert merged["score"] == 5 and len(merged["tests"]) == 4
    assert (
        f"{len(paths) - 1} more notebooks answer exercises another notebook answers"
        in merged["output"]
    )
    assert len((out / "summary.csv").read_text().splitlines()) == 1 + len(paths)
    assert not list(out.glob(".*.tmp"))


def test_usage_errors_exit_2(tmp_path):
    # (a batch that grades exits 0: the batch started again above; an unreadable notebook is
    # graded, with why: the test below)
    assert course("grade", tmp_path / "nope.ipynb", "--out", tmp_path).returncode == 2
    assert course("grade", "--out", tmp_path, "--tests", tmp_path / "nope").returncode == 2


def test_a_notebook_that_cannot_be_read_fails_every_check_with_why_and_runs_no_reference(
    tmp_path, monkeypatch):
    from course.grading.judging import mistakes, oracle

    ran = []
    monkeypatch.setattr(oracle, "reference_outcome", lambda *args: ran.append(args))
    monkeypatch.setattr(mistakes, "outcome", lambda *args: ran.append(args))
    broken = tmp_path / "broken.ipynb"
    broken.write_text("{")
    [report] = grade_batch([broken], tmp_path / "out", log=lambda line: None)
    # every exercise: none is named in the file
    assert report["score"] == 0 and len(report["tests"]) > 100
    assert {t["output"] for t in report["tests"]} == {
        "the notebook is not valid JSON (line 1, column 2); was it edited outside Jupyter?"}
    assert ran == []


def test_a_batch_without_a_sandbox_warns_in_its_summary_that_isolation_is_partial(tmp_path):
    done = course("grade", write(tmp_path / "solved.ipynb"), "--out", tmp_path / "out", "--tests",
                  CHECKS, "--isolation", "none")
    assert done.returncode == 0, done.stderr
    assert "isolation: none" in done.stderr.splitlines()[0]
    assert done.stderr.splitlines()[-1].startswith("warning: isolation is partial")
    assert "signal the grader" in done.stderr


SPY = '''def spy():
    import importlib.util, os, sys, anthropic
    open("left_behind.txt", "w").write("x")
    import course.grading
    seen_checks = importlib.util.find_spec("course.grading.judging") is not None
    course.grading.check("spy", spy)  # a student's own check() call is harmless
    return {"cwd": os.getcwd(), "env": dict(os.environ), "argv": open("/proc/self/cmdline").read(),
            "path": sys.path, "checks": seen_checks, "grading": os.listdir(course.grading.__path__[0]), \
"stdin": sys.stdin.read(),
            "sdk": anthropic.__name__}
'''  # noqa: E501


def test_student_code_cannot_see_the_checks_the_hidden_tests_or_the_output_folder(tmp_path):
    seen = []
    exercise = Exercise("spy", "spy", "What a worker sees",
                        [Check("records", lambda ctx: seen.append(ctx.call().value))],
                        "spy.ipynb")
    path = tmp_path / "spy.ipynb"
    nb = write(path)
    nb_json = json.loads(nb.read_text())
    nb_json["cells"] = [json.loads(json.dumps(solution("spy", SPY)))]
    path.write_text(json.dumps(nb_json))
    out = tmp_path / "out"
    grade_batch([path], out, CHECKS, jobs=1, budget=Budget(call=20),
                registry=Registry({"spy": exercise}, {}), log=lambda line: None)
    facts = seen[0]
    assert facts["sdk"] == "anthropic" and facts["stdin"] == ""
    assert facts["checks"] is False and facts["grading"] == ["__init__.py"]
    everything = json.dumps(facts)
    assert (
        str(CHECKS) not in everything
        and str(out) not in everything
        and str(tmp_path) not in everything
    )
    assert Path(facts["cwd"]).is_relative_to(tempfile.gettempdir())
    assert not Path(facts["cwd"]).exists()  # the worker's folder is removed after grading
    assert sorted(p.name for p in out.iterdir()) == [".seals.json", "spy.feedback.html", "spy.json",
                                                     "summary.csv"]




HIDDEN_EXTRA = '''from course.contract.exercise import Check, CheckFailed, Exercise


def never(ctx):
    raise CheckFailed("a hidden check added later")


EXERCISES = [Exercise("ask", "ask", "Ask the model once", [Check("a later hidden check", never)],
                      notebook="fixture.ipynb")]
'''


def test_a_report_is_kept_only_when_everything_it_was_made_from_is_the_same(tmp_path):
    """Graded again with a hidden check added (--tests), or other limits, every report is graded
    again; with nothing changed, none is (before, the seal covered the notebook and the report
    only)."""
    path, out = write(tmp_path / "student.ipynb"), tmp_path / "out"
    more = tmp_path / "more_tests"
    more.mkdir()
    (more / "fixture_checks.py").write_text((CHECKS / "fixture_checks.py").read_text())
    (more / "later.py").write_text(HIDDEN_EXTRA)

    def again(tests, budget: Budget | None = None) -> tuple[str, dict]:
        lines = []
        report, = grade_batch([path], out, tests, jobs=2, budget=budget, registry=Registry({}, {}),
                              log=lines.append)
        return lines[0], report

    assert again(CHECKS)[0].startswith("1 submission: 0 already graded, 1 to grade")
    line, report = again(more)
    assert line.startswith("1 submission: 0 already graded, 1 to grade")
    assert len(report["tests"]) == 5 and "a hidden check added later" in json.dumps(report)
    assert again(more)[0].startswith("1 submission: 1 already graded, 0 to grade")
    assert again(more, Budget(call=14))[0].startswith("1 submission: 0 already graded, 1 to grade")


@pytest.mark.parametrize("recovers", [True, False])
def test_a_reference_outcome_that_timed_out_is_never_the_oracle(monkeypatch, recovers):
    """A loaded machine made the reference time out: its case is run again alone with twice the
    time; if that times out too, the case is not graded (a wrong answer is not marked down on it)
    and the exercise says so. Before, the timed-out outcome was the oracle, against which an honest
    student lost marks."""
    exercise = shipped().exercise("first_violation")
    real, seen = oracle.trusted_call, []

    def loaded(fn, case, timeout=oracle.REFERENCE_TIMEOUT, saved_as=None):
        seen.append(timeout)
        if timeout == oracle.REFERENCE_TIMEOUT or not recovers:
            return Outcome(error=f"timed out after {timeout:g} s (an endless loop? no turn cap?)")
        return real(fn, case, timeout)

    def wrong(messages):
        return ["P1", 0]

    # on a quiet machine
    honest = [m.passed for m in run_exercise(exercise, NotebookContext(wrong, shipped()))]
    assert not all(honest)
    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call", loaded)
    ctx = NotebookContext(wrong, shipped())
    ctx.remarks = set()
    marks = run_exercise(exercise, ctx)
    assert 2 * oracle.REFERENCE_TIMEOUT in seen
    if recovers:  # graded against the outcome of the second run: as on a quiet machine
        assert [m.passed for m in marks] == honest and not ctx.remarks
    else:
        assert all(m.passed for m in marks)
        assert ctx.remarks == {f"the reference timed out twice on a case of '{r.name}', which was "
                               "not graded"
                               for r in exercise.rules}
