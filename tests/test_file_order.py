"""The order make test's two workers take the test files in (tests/file_order.py): the longest first."""
from __future__ import annotations

from types import SimpleNamespace

import file_order  # tests/, on sys.path as pytest imports the tests


def ordered(seconds: dict[str, float], *nodeids: str) -> list[str]:
    items = [SimpleNamespace(nodeid=n) for n in nodeids]
    return [i.nodeid for i in sorted(items, key=file_order.longest_first(seconds))]


def test_the_files_go_longest_first_by_the_last_run_a_new_file_before_all_and_a_files_tests_in_order():
    seconds = {"tests/a.py": 5.0, "tests/b.py": 300.0}
    assert ordered(seconds, "tests/a.py::one", "tests/a.py::two", "tests/b.py::one", "tests/new.py::one") == [
        "tests/new.py::one", "tests/b.py::one", "tests/a.py::one", "tests/a.py::two"]


def test_before_any_run_the_files_measured_longest_go_first_and_the_others_as_collected():
    first, second = file_order.LONGEST[:2]
    assert ordered({}, "tests/z.py::one", f"{second}::one", "tests/a.py::one", f"{first}::one") == [
        f"{first}::one", f"{second}::one", "tests/z.py::one", "tests/a.py::one"]
