"""Smoke tests of the benchmarks: each runs with tiny sizes and returns well-formed figures (no
timing asserted)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bench import __main__ as runner
from bench import grading, loop

pytestmark = pytest.mark.slow  # every benchmark run once, small: make test, not make check

ROOT = Path(__file__).resolve().parents[2]
SOLUTION = ROOT / "solutions" / f"{grading.NOTEBOOK}.ipynb"


@pytest.fixture(scope="module")
def loop_figures():
    return loop.bench_loop(turns=(2, 3), repeats={2: 2, 3: 1})


def test_loop_figures_are_well_formed(loop_figures):
    rows = loop_figures["rows"]
    assert [r["turns"] for r in rows] == [2, 3] and [r["calls"] for r in rows] == [3, 4]
    for r in rows:
        assert set(r["ms_per_call"]) == {"ours", "tool_runner", "floor"}
        assert all(ms > 0 for ms in r["ms_per_call"].values())
        assert r["ours_vs_floor"] > 0 and r["ours_vs_tool_runner"] > 0
        # the floor sends ours' bytes
        assert r["request_bytes"]["ours"] == r["request_bytes"]["floor"] > 0
    assert len(loop_figures["targets"]) == 2 and all(
        isinstance(v, bool) for v in loop_figures["targets"].values())
    assert "| 2 | 3 |" in loop.table(loop_figures)


def test_profile_shares_add_up():
    shares = loop.profile(turns=1, runs=1)
    assert abs(sum(s for _, s in shares) - 1) < 1e-9
    assert any(area == "local API (course/api)" for area, _ in shares)


def test_runner_writes_machine_date_and_command(loop_figures):
    record = {"figures": loop_figures, "started": "2026-01-02 03:04", "minutes": 1.0,
              "load": [1.0, 2.0]}
    doc = runner.render({"loop": record}, {"loop": loop})
    assert (
        "make bench" in doc
        and "2026-01-02 03:04 UTC" in doc
        and "CPU cores:" in doc
        and "anthropic " in doc
    )
    assert "## Loop: per-call overhead" in doc


def test_submissions_mix_and_correct_grades():
    subs = grading.submissions(SOLUTION)
    assert len(subs) == 20 and len({s.student for s in subs}) == 20
    assert {s.kind for s in subs} == {"correct", "partial", "hostile"}
    assert {s.case for s in subs if s.kind == "hostile"} == set(grading.HOSTILE)
    picked = [next(s for s in subs if s.kind == "correct"),
              next(s for s in subs if s.case == "set_custom_exc")]
    correct, maximum = grading.correct_grades(picked)
    # the solution, the stub
    assert correct[picked[0].student] == maximum and correct[picked[1].student] == 0


@pytest.mark.slow
def test_grading_bench_runs_our_grader(tmp_path):
    # a hostile case that ends at once (while_true waits out the grader's cell limit, which
    # tests/grading/test_grading_hostile.py proves with a shorter one)
    figures = grading.bench_grading(SOLUTION, tools=("ours",), limit=1, hostile=("os_exit",),
                                    base=tmp_path)
    ours = figures["tools"]["ours"]
    assert figures["benign"] == 2 and ours["per_minute"] > 0 and ours["benign_wrong"] == []
    assert ours["hostile"]["os_exit"]["outcome"].startswith("correct grade")
    assert "os_exit" in grading.table(figures)


def test_outcome_names_each_kind_of_result():
    outcome = grading.outcome
    assert outcome(grading.Graded(1, None, "timeout"), 9, 9).startswith("hangs")
    assert outcome(grading.Graded(1, 9, "graded"), 9, 9).startswith("correct grade")
    assert outcome(grading.Graded(1, 9, "graded"), 0, 9).startswith("full marks wrongly")
    assert outcome(grading.Graded(1, 0, "graded"), 9, 9).startswith("0")


def test_explorer_bench_runs_without_the_browser():
    explorer = runner.available()["explorer"]
    # the browser part takes minutes; one scenario runs every line of the kernel's part
    figures = explorer.bench_explorer(repeats=1, in_browser=False, names=("aurora_run",))
    assert list(figures["scenarios"]) == ["aurora_run"]
    assert "| aurora_run |" in explorer.table(figures)


def test_the_explorer_table_gives_its_p95_over_the_plain_sliders():
    from bench import explorer

    def row(steps, runs):
        samples = runs + steps
        return {"changes": len(samples), "step_changes": len(steps), "missed": 0, "p50_ms": 1,
                "p95_ms": 1,
                "max_turns_p95_ms": max(runs), "step_p95_ms": max(steps), "samples": samples}

    browser = {loop: {"one_shot": row([60.0] * 20, [90.0] * 20)} for loop in explorer.LOOPS}
    browser["plain"] = {"changes": 3, "p50_ms": 50.0, "p95_ms": 50.0, "samples": [50.0] * 3}
    figures = {"browser": browser, "scenarios": {}}
    assert "| reference | 1.80x | 1.20x | 1.80x |" in explorer.table(figures)


def test_one_benchmarks_sections_are_rewritten_and_the_others_kept(loop_figures):
    record = {"figures": loop_figures, "started": "2026-01-02 03:04", "minutes": 1.0,
              "load": [1.0, 2.0]}
    doc = ("# Benchmarks\n\nintro\n\n## Loop: per-call overhead\n\nold figures\n\n## Something "
           "else\n\nkept\n")
    new = runner.rewrite_sections(doc, {"loop": record}, {"loop": loop})
    assert "old figures" not in new and "2026-01-02 03:04 UTC" in new and new.startswith(
        "# Benchmarks\n\nintro\n")
    assert (
        new.index("## Loop: per-call overhead") < new.index("## Something else") and "kept" in new
    )


def test_the_claude_code_table_is_well_formed():
    from bench import claude_code

    row = {"scenario": "count_python_files", "runs": 1, "requests": 2, "num_turns": 2,
           "subtype": "success", "median_s": 0.7, "max_s": 0.9, "agent_ms": 3.0}
    table = claude_code.table({"rows": [row]})
    assert "| count_python_files | 1 | 2 | 2 | success | 0.70 | 0.90 | 350 | 3.0 |" in table


@pytest.mark.slow
def test_isolation_bench_grades_a_tiny_class_both_ways(tmp_path):
    from bench import isolation

    # a solution and an exercise of one lesson: the smallest class with both kinds of submission
    figures = isolation.bench_isolation(students=2, repeats=1, base=tmp_path, lessons=1)
    assert figures["notebooks"] == 2 and set(figures["per_second"]) == {"default", "none"}
    assert figures["modes"]["none"] == "none" and "| none |" in isolation.table(figures)


MAKE_TEST = """the test suite and the notebooks run side by side; each prints its report when it ends
.venv/bin/python -m pytest -q -n 2 --dist loadfile --durations=10 tests
========== 3054 passed, 4 skipped in 1114.20s (0:18:34) ==========
env -u ANTHROPIC_API_KEY SHELL=/bin/sh .venv/bin/python -m pytest -q --durations=5 --nbval notebooks
===== 1 failed, 798 passed in 427.50s (0:07:07) =====
make: *** [Makefile:99: test-notebooks] Error 1"""  # noqa: E501


def test_make_test_is_timed_in_a_fresh_clone_and_its_phases_read_from_its_output(tmp_path):
    """A stand-in for `make test` that prints what it prints: the clone is made, the command run
    there and timed."""
    from bench import make_test

    figures = make_test.bench_make_test(tmp_path / "clone",
                                        ("sh", "-c", f"test -f Makefile && cat <<'END'\n"
                                                              f"{MAKE_TEST}\nEND\nexit 2"))
    assert (
        (tmp_path / "clone" / "Makefile").exists()
        and figures["returncode"] == 2
        and figures["total_s"] > 0
    )
    assert (
        figures["suite"]["counts"] == "3054 passed, 4 skipped"
        and figures["suite"]["seconds"] == 1114.2
    )
    assert (
        figures["notebooks"]["counts"] == "1 failed, 798 passed"
        and figures["notebooks"]["seconds"] == 427.5
    )
    assert 0 <= figures["setup_s"] <= figures["suite"]["ended_s"] <= figures["notebooks"]["ended_s"]
    assert list(figures["targets"].values()) == [False]  # it failed
    assert "| failed |" in make_test.table(
        figures
    ) and "1114 s (3054 passed, 4 skipped)" in make_test.table(figures)


def test_a_whole_bench_run_keeps_the_make_test_section_it_did_not_run():
    loop, kept = "## Loop: per-call overhead\n\n", ("\n## make test: a fresh clone, every "
                                                    "check\n\nkept\n")
    old = f"# Benchmarks\n\n{loop}old loop\n{kept}"
    new = runner.kept_on_demand(f"# Benchmarks\n\n{loop}new loop\n", old)
    assert new == f"# Benchmarks\n\n{loop}new loop\n{kept}"
    assert runner.kept_on_demand(old, "") == old
