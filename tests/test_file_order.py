"""The order make test's two workers take the test files in (tests/file_order.py): the longest
first."""
from __future__ import annotations

import json
from types import SimpleNamespace

import file_order  # tests/, on sys.path as pytest imports the tests


def ordered(seconds: dict[str, float], *nodeids: str) -> list[str]:
    items = [SimpleNamespace(nodeid=n) for n in nodeids]
    return [i.nodeid for i in sorted(items, key=file_order.longest_first(seconds))]


def test_the_files_go_longest_first_by_the_last_run_a_new_file_before_all_and_a_files_tests_in_order():  # noqa: E501
    seconds = {"tests/a.py": 5.0, "tests/b.py": 300.0}
    assert ordered(seconds, "tests/a.py::one", "tests/a.py::two", "tests/b.py::one",
                   "tests/new.py::one") == [
        "tests/new.py::one", "tests/b.py::one", "tests/a.py::one", "tests/a.py::two"]


def test_before_any_run_the_committed_seconds_of_a_fresh_clone_order_the_files(
    monkeypatch, tmp_path
):
    monkeypatch.setattr(file_order, "SECONDS", tmp_path / "build" / "test-seconds.json")
    committed = json.loads(file_order.COMMITTED.read_text())
    assert file_order.took() == committed and "tests/grading/test_exercises.py" in committed
    file_order.SECONDS.parent.mkdir()
    file_order.SECONDS.write_text('{"tests/a.py": 1.0}')
    assert file_order.took() == {"tests/a.py": 1.0}  # this machine's last run, once there is one
