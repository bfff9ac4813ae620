"""The order make test's two workers take the test files in (tests/conftest.py): the longest first."""
from __future__ import annotations

from types import SimpleNamespace

import conftest  # tests/conftest.py, on sys.path as pytest imports the tests


def ordered(seconds: dict[str, float], *nodeids: str) -> list[str]:
    return [i.nodeid for i in sorted((SimpleNamespace(nodeid=n) for n in nodeids), key=conftest.longest_first(seconds))]


def test_the_files_go_longest_first_by_the_last_run_a_new_file_before_all_and_a_files_tests_in_order():
    seconds = {"tests/a.py": 5.0, "tests/b.py": 300.0}
    assert ordered(seconds, "tests/a.py::one", "tests/a.py::two", "tests/b.py::one", "tests/new.py::one") == [
        "tests/new.py::one", "tests/b.py::one", "tests/a.py::one", "tests/a.py::two"]


def test_before_any_run_the_files_measured_longest_go_first_and_the_others_as_collected():
    first, second = conftest.LONGEST[:2]
    assert ordered({}, "tests/z.py::one", f"{second}::one", "tests/a.py::one", f"{first}::one") == [
        f"{first}::one", f"{second}::one", "tests/z.py::one", "tests/a.py::one"]
