"""Grading benchmark: our grader against nbgrader autograde and otter-grader on the same 20
submissions.

The submissions are variants of lesson 03's graded cell (`agent_loop`), built from the solution
notebook: correct copies, partially wrong implementations (course/grading/judging/mistakes/), and
hostile ones (a stray `while True`, `os._exit`, `sys.exit`, `input()`, `set_custom_exc`, an
always-equal answer, a patched test runner, rewritten hidden tests). nbgrader and otter get the same
checks as ours, one test cell (otter: one test case) per check, calling the course's in-kernel
runner; each tool runs from its own venv under build/bench-envs/ (installed on first use).

Each tool grades the benign submissions as one timed batch (throughput), then every hostile
submission alone, under a harness timeout, so that a hang is recorded as a hang. The correct
grade of a submission is what its honest part earns from the course's checks in this process.
"""
from __future__ import annotations

import ast
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

from course.grading.judging import registry as registry_module
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise

from .envs import make_venv, once

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "build" / "bench-grading"
ENVS = ROOT / "build" / "bench-envs"
NOTEBOOK = "03_the_first_loop"
GRADE_ID = "agent_loop"
ASSIGNMENT = "ps1"
CLASS_SIZE = 30  # students in the class benchmark, each submitting every lesson's notebook
CLASS_ASSIGNMENT = "course"
TIMEOUT = 120.0  # seconds the harness gives one tool command before recording a hang
TOOLS = {"nbgrader": "nbgrader==0.9.6", "otter": "otter-grader==7.0.0"}
CORRECT = 8  # correct copies among the 20
MISTAKES = ["l03_off_by_one", "l03_only_first_result", "l03_drops_history", "l03_text_looks_final"]
SOLUTION_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$", re.MULTILINE)

STUB = '''def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    raise NotImplementedError("agent_loop")
'''
# case -> (what the student appends to / writes instead of the solution, whether the function is the
# stub)
HOSTILE = {
    "while_true": ("while True:  # a stray busy loop after a correct function\n    pass\n", False),
    "os_exit": ("import os\nos._exit(1)\n", False),
    "sys_exit": ("import sys\nsys.exit()\n", False),
    "input": ('name = input("Your name: ")\n', False),
    "set_custom_exc": ("get_ipython().set_custom_exc((BaseException,), lambda *args, **kwargs: "
                       "None)\n", True),
    "eq_always_true": ('''class Always(str):
    def __eq__(self, other):
        return True
    __hash__ = str.__hash__


def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    return Always("1974"), [Always("")]
''', None),
    "patch_test_runner": ('''try:  # every check "passes", in whatever process runs this cell
    import course.grading.marks.mark as _mark
    _mark.run_check = lambda exercise, check, context: _mark.Mark(
        f"{exercise.grade_id}: {check.name}", check.points, check.points)
except Exception:
    pass
''', True),
    "rewrite_hidden_tests": ('''import pathlib
for _base in [pathlib.Path.cwd(), *list(pathlib.Path.cwd().parents)[:2]]:  # test files near the notebook
    for _test in _base.glob("**/tests/*.py"):
        try:
            if "OK_FORMAT" in _test.read_text():
                _test.write_text("OK_FORMAT = True\\ntest = {'name': 'agent_loop', 'points': 9, 'suites': [{'cases': "
                                 "[{'code': '>>> True\\\\nTrue', 'hidden': False, 'locked': False}], 'scored': True, "
                                 "'setup': '', 'teardown': '', 'type': 'doctest'}]}\\n")
        except OSError:
            pass
''', True),  # noqa: E501
}
CHECK_CELL = """from course.grading import registry, verdict, notebook_context
_registry = registry.shipped()
_exercise = _registry.exercise({grade_id!r})
_result = verdict.run_check(_exercise, _exercise.checks[{index}], \
notebook_context.NotebookContext({function}, _registry))
assert _result.passed, _result.reason"""
HIDDEN_CHECKS = 2  # the last checks are hidden tests (nbgrader: HIDDEN TESTS, otter: hidden: true)


@dataclass
class Submission:
    student: str
    kind: str  # correct | partial | hostile
    case: str
    code: str  # the graded cell as submitted
    honest: str  # the code whose grade is the correct grade

    @property
    def benign(self) -> bool:
        return self.kind != "hostile"


@dataclass
class Graded:
    seconds: float
    score: float | None  # None when the tool gave no grade
    status: str  # graded | timeout | failed


def run(cmd: list, cwd: Path,
        timeout: float = TIMEOUT) -> tuple[float, subprocess.CompletedProcess | None]:
    """(seconds, the finished process, or None when it was killed at the timeout); cmd[0]'s folder
    leads PATH."""
    env = {**os.environ, "PATH": f"{Path(cmd[0]).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    started = time.perf_counter()
    try:
        done = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        return time.perf_counter() - started, None
    return time.perf_counter() - started, done


def tool_env(name: str) -> Path:
    """build/bench-envs/<name>: a venv with the tool and this course (its kernels import course);
    reused."""
    home = ENVS / name

    def build():
        with open(ENVS / f"{name}.log", "w") as log:
            make_venv(home, TOOLS[name], stdout=log, stderr=subprocess.STDOUT)

    once(home / ".installed", TOOLS[name], build)
    return home / "bin"


def solution_cell(path: Path) -> str:
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == GRADE_ID:
            return cell.source
    raise LookupError(f"{path}: no cell with grade_id {GRADE_ID!r}")


def function_source(path: Path) -> str:
    """The `def agent_loop` of a mistakes/ file."""
    source = path.read_text()
    node = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                and n.name == GRADE_ID)
    return ast.get_source_segment(source, node) + "\n"


def submissions(solution: Path) -> list[Submission]:
    correct = SOLUTION_MARKER.sub("", solution_cell(solution)).replace("\n\n\n", "\n\n")
    subs = [Submission("", "correct", "solution", correct, correct) for _ in range(CORRECT)]
    for name in MISTAKES:
        code = function_source(ROOT / "course" / "grading" / "judging" / "mistakes" / f"{name}.py")
        subs.append(Submission("", "partial", name.removeprefix("l03_"), code, code))
    for case, (code, stub) in HOSTILE.items():
        if stub is None:
            subs.append(Submission("", "hostile", case, code, code))
        else:
            base = STUB if stub else correct
            subs.append(Submission("", "hostile", case, base + "\n\n" + code, base))
    for i, s in enumerate(subs, 1):
        s.student = f"s{i:02d}"
    return subs


def correct_grades(subs: list[Submission]) -> tuple[dict[str, float], float]:
    """student -> the grade the honest code earns from the course's checks, run in this process; and
    the maximum."""
    registry = registry_module.shipped()
    exercise = registry.exercise(GRADE_ID)
    memo: dict[str, float] = {}
    for s in subs:
        if s.honest not in memo:
            namespace: dict = {}
            exec(compile(s.honest, f"<{s.student}>", "exec"), namespace)
            memo[s.honest] = sum(
                r.score
                for r in run_exercise(exercise, NotebookContext(namespace[GRADE_ID], registry))
            )
    return {s.student: memo[s.honest] for s in subs}, exercise.points


def check_cells(function: str) -> list[str]:
    n = len(registry_module.shipped().exercise(GRADE_ID).checks)
    return [CHECK_CELL.format(grade_id=GRADE_ID, index=i, function=function) for i in range(n)]


def with_code(nb, code: str, is_graded) -> nbformat.NotebookNode:
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    next(c for c in nb.cells if is_graded(c)).source = code
    return nb


def kernelspec(nb) -> None:
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}


def nbgrader_meta(grade_id: str, *, solution: bool, points: float = 0) -> dict:
    return {"nbgrader": {"schema_version": 3, "grade": not solution, "solution": solution,
                         "locked": not solution,
                         "grade_id": grade_id, "points": points, "task": False}}


# Each tool: prepare(subs) -> (grade a batch of students, grade one student), both returning
# {student: Graded}.

class Ours:
    name = "ours"
    what = "python -m course grade (a process per exercise, the API on loopback)"

    def __init__(self, base: Path, solution: Path):
        self.home = base / "ours"
        exercise = ROOT / "exercises" / f"{NOTEBOOK}.ipynb"
        self.template = nbformat.read(exercise if exercise.exists() else solution, as_version=4)

    def prepare(self, subs: list[Submission]) -> None:
        for s in subs:
            nb = with_code(self.template, s.code,
                           lambda c: c.metadata.get("nbgrader", {}).get("grade_id") == GRADE_ID)
            (self.home / "submitted").mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, self.home / "submitted" / f"{s.student}.ipynb")

    def grade(self, students: list[str], timeout: float) -> dict[str, Graded]:
        # a fresh folder: kept reports are reused
        out = self.home / f"out-{len(list(self.home.glob('out-*')))}"
        paths = [self.home / "submitted" / f"{s}.ipynb" for s in students]
        seconds, done = run([sys.executable, "-m", "course", "grade", *paths, "--out", out], ROOT,
                            timeout)
        graded = {}
        for s in students:
            report = out / f"{s}.json"
            score = json.loads(report.read_text())["score"] if report.exists() else None
            graded[s] = Graded(seconds, score,
                               "timeout" if done is None else "graded" if score is not None
                               else "failed")
        return graded


class Nbgrader:
    name = "nbgrader"
    what = "nbgrader autograde (test cells in the student's kernel)"

    def __init__(self, base: Path, solution: Path):
        self.home = base / "nbgrader"
        self.bin = tool_env("nbgrader")
        cells = [nbformat.v4.new_code_cell(solution_cell(solution),
                                           metadata=nbgrader_meta(GRADE_ID, solution=True))]
        tests = check_cells(GRADE_ID)
        for i, test in enumerate(tests):
            if i >= len(tests) - HIDDEN_CHECKS:
                test = f"### BEGIN HIDDEN TESTS\n{test}\n### END HIDDEN TESTS"
            cells.append(
                nbformat.v4.new_code_cell(
                    test,
                    metadata=nbgrader_meta(f"{GRADE_ID}_check_{i + 1}", solution=False, points=1),
                )
            )
        self.source = nbformat.v4.new_notebook(cells=cells)
        kernelspec(self.source)

    def nbgrader(self, *args, timeout: float = TIMEOUT):
        return run([self.bin / "nbgrader", *args], self.home, timeout)

    def prepare(self, subs: list[Submission]) -> None:
        (self.home / "source" / ASSIGNMENT).mkdir(parents=True, exist_ok=True)
        (self.home / "nbgrader_config.py").write_text(
            f"c = get_config()\nc.CourseDirectory.root = {str(self.home)!r}\n")
        nbformat.write(self.source, self.home / "source" / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
        _, done = self.nbgrader("generate_assignment", ASSIGNMENT, "--force")
        if done is None or done.returncode:
            raise RuntimeError("nbgrader generate_assignment failed: "
                               f"{done and done.stderr[-2000:]}")
        release = nbformat.read(self.home / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb",
                                as_version=4)
        for s in subs:
            folder = self.home / "submitted" / s.student / ASSIGNMENT
            folder.mkdir(parents=True, exist_ok=True)
            nb = with_code(release, s.code,
                           lambda c: c.metadata.get("nbgrader", {}).get("grade_id") == GRADE_ID)
            nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")

    def grade(self, students: list[str], timeout: float) -> dict[str, Graded]:
        only = ["--student", students[0]] if len(students) == 1 else \
            [f"--CourseDirectory.student_id_exclude={','.join(self.others(students))}"]
        seconds, done = self.nbgrader("autograde", ASSIGNMENT, "--force", *only, timeout=timeout)
        scores = self.scores()
        return {s: Graded(seconds, scores.get(s), "timeout" if done is None else
                          "graded" if s in scores else "failed") for s in students}

    def others(self, students: list[str]) -> list[str]:
        return [p.name for p in (self.home / "submitted").iterdir() if p.name not in students]

    def scores(self) -> dict[str, float]:
        """student -> score of the autograded submissions, from `nbgrader export`."""
        target = self.home / "grades.csv"
        self.nbgrader("export", f"--CsvExportPlugin.to={target}")
        if not target.exists():
            return {}
        with target.open() as f:
            rows = [r for r in csv.DictReader(f) if r["assignment"] == ASSIGNMENT]
        graded = {p.parent.parent.name
                  for p in (self.home / "autograded").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.ipynb")}
        return {r["student_id"]: float(r["score"]) for r in rows if r["student_id"] in graded}


class Otter:
    name = "otter"
    what = "otter run (tests in the student's kernel), once per submission"

    def __init__(self, base: Path, solution: Path):
        self.home = base / "otter"
        self.bin = tool_env("otter")
        raw = nbformat.v4.new_raw_cell
        code = re.sub(r"^(\s*)### (BEGIN|END) SOLUTION", r"\1# \2 SOLUTION",
                      solution_cell(solution), flags=re.MULTILINE)
        cells = [raw("# ASSIGNMENT CONFIG\nname: agent_loop\nrequirements: null\nrun_tests: "
                     "false\ninit_cell: true\n"
                     "check_all_cell: false\nexport_cell: false\nsolutions_pdf: false\ngenerate: "
                     "true\n"),
                 raw(f"# BEGIN QUESTION\nname: {GRADE_ID}\npoints:\n  each: 1\n"),
                 nbformat.v4.new_markdown_cell(f"Write `{GRADE_ID}`."),
                 raw("# BEGIN SOLUTION"), nbformat.v4.new_code_cell(code), raw("# END SOLUTION"),
                 raw("# BEGIN TESTS")]
        tests = check_cells(GRADE_ID)
        for i, test in enumerate(tests):
            hidden = ('""" # BEGIN TEST CONFIG\nhidden: true\n""" # END TEST CONFIG\n'
                      if i >= len(tests) - HIDDEN_CHECKS else "")
            cells.append(nbformat.v4.new_code_cell(hidden + test))
        cells += [raw("# END TESTS"), raw("# END QUESTION")]
        self.master = nbformat.v4.new_notebook(cells=cells)
        kernelspec(self.master)

    def prepare(self, subs: list[Submission]) -> None:
        self.home.mkdir(parents=True, exist_ok=True)
        nbformat.write(self.master, self.home / f"{NOTEBOOK}.ipynb")
        _, done = run([self.bin / "otter", "assign", f"{NOTEBOOK}.ipynb", "dist"], self.home)
        zips = sorted((self.home / "dist" / "autograder").glob("*.zip"))
        if done is None or done.returncode or not zips:
            raise RuntimeError(f"otter assign failed: {done and done.stderr[-2000:]}")
        self.zip = zips[-1]
        student = nbformat.read(self.home / "dist" / "student" / f"{NOTEBOOK}.ipynb", as_version=4)
        for s in subs:
            nb = with_code(student, s.code,
                           lambda c: c.cell_type == "code" and f"def {GRADE_ID}" in c.source)
            (self.home / "submitted" / s.student).mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, self.home / "submitted" / s.student / f"{NOTEBOOK}.ipynb")

    def grade(self, students: list[str], timeout: float) -> dict[str, Graded]:
        graded = {}
        for s in students:  # otter run grades one notebook per command
            out = self.home / "out" / s
            out.mkdir(parents=True, exist_ok=True)
            seconds, done = run([self.bin / "otter", "run", "-a", self.zip, "-o", out, "--no-logo",
                                 self.home / "submitted" / s / f"{NOTEBOOK}.ipynb"], self.home,
                                timeout)
            report = out / "results.json"
            score = (sum(t.get("score") or 0 for t in json.loads(report.read_text())["tests"])
                     if report.exists() else None)
            graded[s] = Graded(seconds, score,
                               "timeout" if done is None else "graded" if score is not None
                               else "failed")
        return graded


def outcome(g: Graded, correct: float, maximum: float) -> str:
    if g.status == "timeout":
        return "hangs (killed at the timeout)"
    if g.score is None:
        return "no grade (the tool failed)"
    if abs(g.score - correct) < 1e-9:
        return f"correct grade ({g.score:g})"
    if g.score >= maximum:
        return f"full marks wrongly ({g.score:g}; correct {correct:g})"
    if g.score == 0:
        return f"0 (correct {correct:g})"
    return f"wrong grade ({g.score:g}; correct {correct:g})"


def bench_grading(solution: Path | None = None, *,
                  tools: tuple[str, ...] = ("ours", "nbgrader", "otter"),
                  limit: int | None = None, hostile: tuple[str, ...] | None = None,
                  timeout: float = TIMEOUT, base: Path = WORK) -> dict:
    """Throughput on the benign submissions (one batch per tool) and the outcome of each hostile
    one.

    `limit` keeps only the first benign and hostile submissions of each kind (for smoke tests);
    `hostile` names the hostile cases kept (default: all of HOSTILE).
    """
    solution = solution or ROOT / "solutions" / f"{NOTEBOOK}.ipynb"
    subs = [s for s in submissions(solution) if s.kind != "hostile" or hostile is None
            or s.case in hostile]
    if limit:
        subs = [s for kind in ("correct", "partial", "hostile")
                for s in [x for x in subs if x.kind == kind][:limit]]
    correct, maximum = correct_grades(subs)
    classes = {"ours": Ours, "nbgrader": Nbgrader, "otter": Otter}
    shutil.rmtree(base, ignore_errors=True)
    runners = [classes[t](base, solution) for t in tools]
    benign = [s.student for s in subs if s.benign]
    hostile = [s for s in subs if not s.benign]
    results = {}
    for r in runners:
        r.prepare(subs)
        graded = r.grade(benign, timeout * len(benign))
        seconds = graded[benign[0]].seconds if r.name != "otter" else sum(
            g.seconds for g in graded.values())
        wrong = [s for s in benign if graded[s].score is None
                 or abs(graded[s].score - correct[s]) > 1e-9]
        cases = {}
        for s in hostile:
            g = r.grade([s.student], timeout)[s.student]
            cases[s.case] = {"outcome": outcome(g, correct[s.student], maximum),
                             "seconds": g.seconds}
        results[r.name] = {"what": r.what, "benign_seconds": seconds,
                           "per_minute": len(benign) / seconds * 60,
                           "benign_wrong": wrong, "hostile": cases}
    if "ours" in results:
        for res in results.values():
            res["ours_speedup"] = (
                res["benign_seconds"] and results["ours"]["per_minute"] / res["per_minute"]
            )
    figures = {"submissions": [{"student": s.student, "kind": s.kind, "case": s.case,
                                "correct": correct[s.student]}
                               for s in subs],
               "benign": len(benign), "max_score": maximum, "timeout_s": timeout, "tools": results}
    if "nbgrader" in tools and "ours" in tools:
        figures["class"] = bench_class(base / "class", students=limit or CLASS_SIZE)
    return {**figures, "targets": targets(figures)}


def bench_class(base: Path, students: int = 30) -> dict:
    """A whole class: `students` students, each submitting every lesson's notebook (half the
    solutions, half the untouched exercises), as nbgrader's
    submitted/<student>/<assignment>/<notebook>.ipynb; `python -m course grade submitted/` against
    `nbgrader autograde` (which runs every cell of every notebook in a kernel)."""
    solutions = sorted((ROOT / "solutions").glob("*.ipynb"))
    home = base.resolve() / "nbgrader"
    shutil.rmtree(base, ignore_errors=True)
    (home / "source").mkdir(parents=True)
    shutil.copytree(ROOT / "solutions", home / "source" / CLASS_ASSIGNMENT,
                    ignore=shutil.ignore_patterns("*.py"))
    (home / "nbgrader_config.py").write_text("c = get_config()\nc.CourseDirectory.root = "
                                             f"{str(home)!r}\n"
                                             "c.ExecutePreprocessor.timeout = 120\n")
    nbgrader = tool_env("nbgrader") / "nbgrader"
    _, done = run([nbgrader, "generate_assignment", CLASS_ASSIGNMENT, "--force"], home)
    if done is None or done.returncode:
        raise RuntimeError(f"nbgrader generate_assignment failed: {done and done.stderr[-2000:]}")
    expected = {}
    for i in range(students):
        student, source = f"s{i:02d}", ROOT / ("solutions" if i % 2 == 0 else "exercises")
        folder = home / "submitted" / student / CLASS_ASSIGNMENT
        folder.mkdir(parents=True)
        for nb in solutions:
            shutil.copy(source / nb.name, folder / nb.name)
        expected[student] = "full" if i % 2 == 0 else "zero"
    out = base / "ours"
    ours, done = run([sys.executable, "-m", "course", "grade", home / "submitted", "--out", out],
                     ROOT, TIMEOUT * students)
    theirs, _ = run([nbgrader, "autograde", CLASS_ASSIGNMENT, "--force"], home,
                    TIMEOUT * students * len(solutions))
    with (out / "gradebook.csv").open() as f:
        our_totals = {r["student"]: float(r["total"]) for r in csv.DictReader(f)}
    run([nbgrader, "export", f"--CsvExportPlugin.to={home / 'grades.csv'}"], home)
    with (home / "grades.csv").open() as f:
        their_totals = {r["student_id"]: float(r["score"]) for r in csv.DictReader(f)}
    agree = sum(abs(our_totals.get(s, -1) - their_totals.get(s, -2)) < 1e-6 for s in expected)
    return {"students": students, "notebooks": len(solutions), "ours_seconds": ours,
            "nbgrader_seconds": theirs, "ours_faster_by": theirs / ours, "totals_agree": agree}


def class_table(c: dict) -> str:
    return "\n".join([f"A class: {c['students']} students x {c['notebooks']} notebooks (half "
                      "solutions, half untouched "
                      "exercises), nbgrader's folder layout:", "",
                      "| tool | seconds | students whose total both agree on | ours is faster by |",
                      "|---|---:|---:|---:|",
                      f"| ours (`python -m course grade submitted/`) | {c['ours_seconds']:.1f} | "
                      f"{c['totals_agree']}/{c['students']} | - |",
                      f"| nbgrader autograde | {c['nbgrader_seconds']:.1f} | | "
                      f"{c['ours_faster_by']:.1f}x |"])


def targets(figures: dict) -> dict[str, bool]:
    """At least 3x nbgrader's throughput; the correct grade wherever another tool hangs, fails or
    gives 0."""
    tools = figures["tools"]
    if "ours" not in tools:
        return {}
    failing = ("hangs", "no grade", "0 ")
    beaten = [case for case, o in tools["ours"]["hostile"].items()
              if any(tools[t]["hostile"][case]["outcome"].startswith(failing) for t in tools
                     if t != "ours")]
    met = {
        "ours >= 3x nbgrader's throughput": tools.get("nbgrader", {}).get("ours_speedup", 0) >= 3
    }
    met["ours grades correctly where another tool hangs, fails or gives 0 "
        f"({', '.join(beaten) or 'no such case'})"] = \
        all(tools["ours"]["hostile"][case]["outcome"].startswith("correct") for case in beaten)
    return met


def table(figures: dict) -> str:
    """The figures as Markdown tables: throughput on the benign submissions, then the hostile
    cases."""
    tools = figures["tools"]
    lines = [f"Throughput on the {figures['benign']} benign submissions (one batch per tool):", "",
             "| tool | how it grades | seconds | submissions / min | ours is faster by | benign "
             "graded wrongly |",
             "|---|---|---:|---:|---:|---|"]
    for name, t in tools.items():
        speedup = f"{t['ours_speedup']:.1f}x" if "ours_speedup" in t and name != "ours" else "-"
        lines.append(f"| {name} | {t['what']} | {t['benign_seconds']:.1f} | {t['per_minute']:.1f} "
                     f"| {speedup} | {', '.join(t['benign_wrong']) or 'none'} |")
    cases = [s["case"] for s in figures["submissions"] if s["kind"] == "hostile"]
    correct = {s["case"]: s["correct"] for s in figures["submissions"] if s["kind"] == "hostile"}
    lines += ["", "Hostile submissions, each graded alone (harness timeout "
                  f"{figures['timeout_s']:g} s; maximum {figures['max_score']:g} points):", "",
              "| case | correct grade | " + " | ".join(tools) + " |",
              "|---|---:|" + "---|" * len(tools)]
    for case in cases:
        cells = [f"{tools[t]['hostile'][case]['outcome']}, "
                 f"{tools[t]['hostile'][case]['seconds']:.0f} s" for t in tools]
        lines.append(f"| {case} | {correct[case]:g} | " + " | ".join(cells) + " |")
    if "class" in figures:
        lines += ["", class_table(figures["class"])]
    return "\n".join(lines)
