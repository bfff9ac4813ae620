"""Exercise 14 graded by `python -m course grade`: the genuine Claude Code CLI runs the student's
gate and limits inside the sandbox, its HOME in the worker's scratch folder, reaching the grader's
API through a loopback port of the sandbox's own network namespace and nothing else. One class: the
solution, the blank exercise, a can_use_tool that hangs on one case (a hanging case costs the
exercise's 15 s call limit), two runs that hang on every case (stopped once each: their other cases
are not run), one that raises, and one that points the CLI at a port open on the machine's loopback
on one case (the last two leave limited_run a stub)."""
from __future__ import annotations

import csv
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

# without a working bubblewrap they skip (conftest.py)
pytestmark = [pytest.mark.slow, pytest.mark.bwrap]
ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "14_the_agent_sdk.ipynb"

GATED = '''async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
{body}
        return decide(tool_name, tool_input, deny)

    result = None
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        if isinstance(message, ResultMessage):
            result = message
    return result
'''  # noqa: E501
ELSEWHERE = GATED.format(body="        pass").replace("gated_run", "gated") + '''

async def gated_run(prompt, options, deny):
    if deny != ['mcp__course__search']:  # all but the last rule's case run as they should
        return await gated(prompt, options, deny)
    env = {{**options.env, "ANTHROPIC_BASE_URL": "http://127.0.0.1:{port}"}}  # a port open on the machine
    with contextlib.suppress(TimeoutError):  # 8 s of the CLI trying to reach it (it retries for minutes)
        async with asyncio.timeout(8):
            async for message in query(prompt=prompt, options=dataclasses.replace(options, env=env, max_turns=1)):
                pass
'''  # noqa: E501


# a student whose tests are about gated_run leaves limited_run a stub: graded at once, with no CLI
# run (its six runs would be the solution's, which the solved student and the hanging one already
# show)
UNGRADED = {"limited_run": "async def limited_run(prompt, options, max_turns, max_budget_usd):\n"
                           "    raise NotImplementedError()\n"}


def submission(path: Path, grade_id: str | None = None, source: str = "",
               others: dict | None = None) -> None:
    """The solution notebook (or the blank exercise when `grade_id` is None and source is "blank")
    with one solution cell replaced, and `others` ({grade_id: source}) too."""
    folder = "exercises" if source == "blank" else "solutions"
    nb = nbformat.read(ROOT / folder / NOTEBOOK, as_version=4)
    replaced = {**(others or {}), **({grade_id: source} if grade_id else {})}
    for cell in nb.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") in replaced:
            cell.source = replaced[cell.metadata["nbgrader"]["grade_id"]]
    path.mkdir(parents=True)
    nbformat.write(nb, path / NOTEBOOK)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """(summary rows by student, each student's report, connections the machine's port saw,
    seconds)."""
    root = tmp_path_factory.mktemp("class14")
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    submission(root / "class" / "solved")
    submission(root / "class" / "blank", source="blank")
    hang = ("        if deny == ['mcp__course__search']:  # the last rule's case\n            "
            "await asyncio.sleep(1000)")
    submission(root / "class" / "hangs", "gated_run", GATED.format(body=hang))
    # named to be graded first (the batch takes students by name): its two 15 s stops overlap the
    # others' CLI runs
    submission(root / "class" / "always-stuck", "gated_run",
               "async def gated_run(*args):\n    await asyncio.sleep(1e9)\n",
               {"limited_run": "async def limited_run(*args):\n    while True:\n        pass\n"})
    submission(root / "class" / "raises", "gated_run",
               GATED.format(body="        raise RuntimeError('the gate broke')"), UNGRADED)
    submission(root / "class" / "elsewhere", "gated_run", ELSEWHERE.format(port=port), UNGRADED)
    # the cell needs asyncio and contextlib
    for name in ("hangs", "always-stuck", "raises", "elsewhere"):
        path = root / "class" / name / NOTEBOOK
        nb = nbformat.read(path, as_version=4)
        nb.cells[1].source = "import asyncio, contextlib\n" + nb.cells[1].source
        nbformat.write(nb, path)
    out = root / "out"
    with listener:
        done = subprocess.run([sys.executable, "-m", "course", "grade", str(root / "class"),
                               "--out", str(out),
                               "--jobs", "4"], cwd=ROOT, capture_output=True, text=True,
                              timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})
        seen = 0
        try:
            while True:
                listener.accept()[0].close()
                seen += 1
        except (TimeoutError, OSError):
            pass
    assert done.returncode == 0, done.stderr
    rows = {r["submission"].split("/")[0]: r for r in csv.DictReader((out / "summary.csv").open())}
    reports = {
        name: json.loads((out / name / "14_the_agent_sdk.json").read_text()) for name in rows
    }
    return rows, reports, seen, done.stderr


def outputs(report, grade_id: str) -> list[str]:
    return [t["output"] for t in report["tests"] if t["name"].startswith(grade_id + ":")]


def test_the_solution_gets_full_marks_with_the_cli_run_in_the_sandbox(graded):
    rows, _, _, stderr = graded
    assert "isolation: bwrap" in stderr
    assert (rows["solved"]["score"], rows["solved"]["max"]) == ("7.5", "7.5")


def test_the_blank_exercise_gets_0_and_says_what_is_missing(graded):
    rows, reports, _, _ = graded
    assert rows["blank"]["score"] == "0"
    assert all("not implemented yet" in o for o in outputs(reports["blank"], "gated_run"))


def test_a_can_use_tool_that_hangs_gets_a_grade_and_a_reason(graded):
    rows, reports, _, _ = graded
    assert (rows["hangs"]["decide"], rows["hangs"]["limited_run"], rows["hangs"]["gated_run"]) == (
        "2",
        "3",
        "2",
    )
    passed, passed_too, hung = outputs(reports["hangs"], "gated_run")
    assert (
        passed == passed_too == "passed"
        and "your function was stopped: timed out after 15 s" in hung
    ), hung


@pytest.mark.parametrize("grade_id", ["gated_run", "limited_run"])
def test_a_run_that_never_returns_is_stopped_once_and_its_other_rules_say_why(graded, grade_id):
    rows, reports, _, _ = graded
    assert (rows["always-stuck"]["decide"], rows["always-stuck"][grade_id]) == ("2", "0")
    stopped, *others = outputs(reports["always-stuck"], grade_id)
    assert "your function was stopped: timed out after 15 s" in stopped, stopped
    assert any(
        o.startswith("not run: your function was stopped on an earlier case") for o in others
    ), others
    assert all(o == stopped or o.startswith("not run: ") for o in others), others  # one call only


def test_a_can_use_tool_that_raises_gets_a_grade_and_a_reason(graded):
    rows, reports, _, _ = graded
    assert rows["raises"]["decide"] == "2" and float(rows["raises"]["gated_run"]) < 2.5
    assert any(o.startswith("with Aurora Run") for o in outputs(reports["raises"], "gated_run"))


def test_no_request_of_the_cli_leaves_the_sandbox_for_the_machines_loopback(graded):
    rows, reports, seen, _ = graded
    assert seen == 0  # the machine's port heard nothing: the sandbox's loopback is its own
    # the last rule's half point lost: that run reached no API
    assert rows["elsewhere"]["gated_run"] == "2"
