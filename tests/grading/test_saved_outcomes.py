"""Harness outcomes saved on disk: each run once per machine, never one that failed, never seen by a
worker."""
from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from course.contract.exercise import Outcome
from course.grading.classroom.batch import private_paths
from course.grading.judging import saved_outcomes
from course.grading.judging.oracle import Case

FIRST = Case("a CLI run", ("a prompt", "AGENT_OPTIONS", ["Bash"]), scenario="aurora_run")


@pytest.fixture
def folder(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("COURSE_SAVED_OUTCOMES", str(tmp_path / "outcomes"))
    return tmp_path / "outcomes"


def counting(calls: list, outcome: Outcome):
    def compute() -> Outcome:
        calls.append(1)
        return outcome
    return compute


def test_an_outcome_is_computed_once_and_read_back_whole(folder):
    calls: list = []
    made = Outcome(value={"subtype": "success"}, requests=[{"model": "m"}], statuses=[200],
                   tool_calls=[("search", {"query": "Aurora Run"})], stdout="hi\n",
                   after={"args": [], "kwargs": {}})
    assert (
        saved_outcomes.saved(("reference", "en", "limited_run"), FIRST, counting(calls, made))
        == made
    )
    again = saved_outcomes.saved(("reference", "en", "limited_run"), FIRST,
                                 counting(calls, Outcome(value=2)))
    assert again == made and len(calls) == 1
    in_japanese = saved_outcomes.saved(("reference", "ja", "limited_run"), FIRST,
                                       counting(calls, Outcome(value=3)))
    assert in_japanese.value == 3
    other_case = Case("another", ("a prompt", "AGENT_OPTIONS", ["Edit"]), scenario="aurora_run")
    elsewhere = saved_outcomes.saved(("reference", "en", "limited_run"), other_case,
                                     counting(calls, Outcome(value=4)))
    assert elsewhere.value == 4


def test_an_outcome_with_an_error_is_never_kept(folder):
    calls: list = []
    timed_out = Outcome(error="timed out after 45 s")
    for _ in range(2):
        assert (
            saved_outcomes.saved(("reference", "en", "x"), FIRST, counting(calls, timed_out))
            == timed_out
        )
    assert len(calls) == 2


def test_without_the_folder_nothing_is_saved(monkeypatch, tmp_path):
    monkeypatch.delenv("COURSE_SAVED_OUTCOMES", raising=False)
    calls: list = []
    for _ in range(2):
        saved_outcomes.saved(("k",), FIRST, counting(calls, Outcome(value=1)))
    assert len(calls) == 2 and saved_outcomes.folder() is None


def slow_compute(log: str) -> None:
    """In a process of its own: ask for one key whose computation takes a while, noting each
    computation."""
    import time

    def compute() -> Outcome:
        with open(log, "a") as f:
            f.write("computed\n")
        time.sleep(0.5)
        return Outcome(value=1)
    assert saved_outcomes.saved(("shared",), FIRST, compute) == Outcome(value=1)


def test_two_processes_asking_at_once_run_it_once(folder, tmp_path):
    log = tmp_path / "log"
    # fresh processes, as pytest-xdist's workers and notebooks are
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=slow_compute, args=(str(log),)) for _ in range(2)]
    for p in processes:
        p.start()
    for p in processes:
        p.join(60)
    assert [p.exitcode for p in processes] == [0, 0]
    assert log.read_text() == "computed\n"


def test_a_worker_never_sees_the_saved_outcomes(folder, tmp_path):
    folder.mkdir()
    assert folder.resolve() in private_paths([], [], tmp_path / "out", None)
