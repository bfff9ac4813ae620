"""Cases chosen by coverage: every graded function's reference (its solution cell in solutions/) is
run on every case of every rule of its exercise under coverage.py's branch measurement, and each of
its lines and branches must be reached, but those listed in UNREACHABLE with the reason no case can
reach them.

A report for every exercise, or the ones named (run from the repository's root; exercise 14's runs
start the Claude Code CLI, about 10 s):

    PYTHONPATH=. .venv/bin/python tests/grading/branch_coverage.py [GRADE_ID ...]
"""
from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import coverage

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_mutation import solution_cell  # noqa: E402

from course.grading.judging import oracle, reference, registry  # noqa: E402
from course.grading.judging.mistakes import MISTAKE_TIMEOUT  # noqa: E402

EXIT = "exit"  # a branch that leaves the function (coverage.py's negative line number)

RUNS_OUT = ("each pass returns at turn == max_turns at the latest, so the loop runs out only when "
            "max_turns < 0, which the text never allows")
# (grade_id, the line a branch starts at, where it goes: a line, EXIT, or None for a line never run)
# -> why no case of the exercise's text can reach it
UNREACHABLE = {
    ("guarded_loop", "for turn in range(max_turns + 1):", EXIT): RUNS_OUT,
    ("turn_log", "for turn in range(max_turns + 1):", EXIT): RUNS_OUT,
    ("limited_run", "if result is None:", "raise"):
        "query() raises before any ResultMessage only when the CLI does not run at all (it refuses "
        "a budget of 0 or less: ProcessError); the text says what to return after an error result, "
        "and nothing of a run that never started, so no case asks it",
    ("limited_run", "raise", None): "the same `raise`, never run",
}


def reached(exercise) -> tuple[list[str], dict]:
    """(the solution cell's lines, coverage.py's JSON report of it) after the reference ran every
    case of every rule: the cell is compiled from a file of its own, so that coverage.py measures it
    alone. Nothing is read from the saved outcomes (a harness's run is made again)."""
    before, source = solution_cell(exercise)
    namespace = reference.run_cells(before, exercise.notebook)
    with tempfile.TemporaryDirectory() as folder:
        cell = Path(folder) / f"{exercise.grade_id}.py"
        cell.write_text(source)
        measure = coverage.Coverage(branch=True, data_file=None, include=[str(cell)],
                                    config_file=False)
        measure.start()
        try:
            exec(compile(source, str(cell), "exec"), namespace)
            for rule in exercise.rules:
                for case in rule.all_cases():
                    oracle.trusted_call(namespace[exercise.function], case,
                                        max(MISTAKE_TIMEOUT, exercise.call_timeout))
        finally:
            measure.stop()
        measure.json_report(morfs=[str(cell)], outfile=str(Path(folder) / "report.json"))
        report = json.loads((Path(folder) / "report.json").read_text())
    return source.splitlines(), next(iter(report["files"].values()),
                                     {"missing_lines": [], "missing_branches": []})


def unreached(exercise) -> dict[tuple, str]:
    """The lines and branches of the reference that no case reaches: (grade_id, from, to) as
    UNREACHABLE keys them -> the same in words, with line numbers."""
    lines, report = reached(exercise)

    def text(n: int) -> str:
        return lines[n - 1].strip()

    found = {(exercise.grade_id, text(n), None): f"line {n} `{text(n)}` never runs"
             for n in report["missing_lines"]}
    for start, end in report["missing_branches"]:
        to = EXIT if end < 0 else text(end)
        where = "the function's exit" if end < 0 else f"line {end} `{to}`"
        found[exercise.grade_id, text(start), to] = (f"line {start} `{text(start)}` never goes to "
                                                     f"{where}")
    return found


def main(grade_ids: list[str]) -> None:
    exercises = [e for e in registry.shipped().exercises.values() if e.rules]
    for e in exercises:
        if grade_ids and e.grade_id not in grade_ids:
            continue
        missed = unreached(e)
        listed = {k: v for k, v in missed.items() if k in UNREACHABLE}
        print(f"{e.grade_id}: {'every line and branch reached' if not missed else ''}")
        for key, words in missed.items():
            print(f"    {words}" + (f" (unreachable: {UNREACHABLE[key]})" if key in listed
                                    else " UNREACHED"))


if __name__ == "__main__":
    main(sys.argv[1:])
