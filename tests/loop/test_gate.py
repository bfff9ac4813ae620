"""The gate g of Def. 3.1: allow / deny / ask rules with Tool(spec) patterns."""
import pytest

from course.gate import Gate, main_arguments, matches


@pytest.mark.parametrize("path", ["/etc/x", "//etc/x", "/etc/./x", "/tmp/../etc/x", "/etc/a/b"])
def test_deny_a_pattern_however_the_path_is_spelled(path):
    ok, reason = Gate(deny=["write_file(/etc/*)"]).permits("write_file",
                                                           {"path": path, "content": "!"})
    assert not ok and "write_file(/etc/*)" in reason


def test_the_pattern_is_about_the_main_argument_not_the_content():
    g = Gate(deny=["write_file(/etc/*)"])
    assert g.permits("write_file", {"path": "notes.txt", "content": "/etc/passwd"}) == (True, "")
    assert g.permits("read_file", {"path": "/etc/x"}) == (True, "")  # another tool


def test_without_a_main_argument_every_string_counts():
    assert main_arguments({"a": "x", "b": 2}) == ["x"]
    assert matches("search(*secret*)", "search", {"q": "top secret"})


def test_deny_beats_ask_beats_allow():
    g = Gate(allow=["write_file"], ask=["write_file(*.py)"], deny=["write_file(setup.py)"])
    assert g.decide("write_file", {"path": "setup.py"}).action == "deny"
    assert g.decide("write_file", {"path": "a.py"}).action == "ask"
    assert g.decide("write_file", {"path": "a.txt"}).action == "allow"
    assert g.decide("read_file", {"path": "a.txt"}).rule is None


def test_ask_goes_to_the_approver_and_means_deny_without_one():
    asked = []
    g = Gate(ask=["run_python"], approver=lambda name,
             input: asked.append(input) or input["path"] == "ok.py")
    assert g.permits("run_python", {"path": "ok.py"}) == (True, "")
    ok, reason = g.permits("run_python", {"path": "rm.py"})
    assert not ok and "refused" in reason and len(asked) == 2
    ok, reason = Gate(ask=["run_python"]).permits("run_python", {"path": "ok.py"})
    assert not ok and "nobody approved" in reason


def test_default_deny_and_tool_globs():
    g = Gate(allow=["read_*"], default="deny")
    assert (
        g.permits("read_file", {"path": "a"})[0] and not g.permits("write_file", {"path": "a"})[0]
    )


@pytest.mark.parametrize("bad", [{"deny": ["write_file(/etc/*"]}, {"allow": ["two words"]},
                                 {"default": "maybe"}])
def test_malformed_gates_fail_when_built(bad):
    with pytest.raises(ValueError):
        Gate(**bad)
