"""A Japanese submission is graded exactly like its English original (the same grade_ids, the same
marks), with its reports and its feedback page in Japanese; a check cell in a Japanese notebook
reports in Japanese."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from course.editions.translation import LANG_CELL_ID, japanese, skeleton
from course.grading import check
from course.grading.classroom.submission import Submission, language
from course.grading.judging.registry import shipped
from course.grading.marks.report import per_exercise
from course.i18n import speaking, tr

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = "01_messages_and_blocks"
STUB_EN = ("not implemented yet ({error})\n"
           "Hint: replace the `raise NotImplementedError(...)` in the solution cell with your code")
STUB_JA = ("まだ実装されていません（{error}）\n"
           "ヒント：解答セルの `raise NotImplementedError(...)` を自分のコードに置き換えてください")


def wrong(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The solution with course/grading/judging/mistakes/l01_no_p3.py's function in its solution
    cell (part of the marks), after a cell calling exit(3) (the worker skips it, and its note is
    written in the worker's language)."""
    mistake = (ROOT / "course" / "grading" / "judging" / "mistakes" / "l01_no_p3.py").read_text()
    at = next(i for i,
              cell in enumerate(nb.cells) if cell.metadata.get("nbgrader", {}).get("solution"))
    nb.cells[at].source = mistake[mistake.index("def first_violation"):]
    nb.cells.insert(at, nbformat.v4.new_code_cell("exit(3)"))
    return nb


def submit(english: Path, folder: Path, student: str, name: str, tmp: Path,
           change=lambda nb: nb) -> None:
    """`english` (changed by `change`) as <student>/<name>.ipynb, in Japanese for the student
    "japanese": made by course/editions/translation.py from a catalogue whose prose is left in
    English (the grader reads no prose). The wrong answer's Japanese notebook loses its first cell,
    which sets COURSE_LANG: its metadata alone says Japanese."""
    source = tmp / "src" / english.parent.name / f"{NOTEBOOK}.ipynb"
    source.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(change(nbformat.read(english, as_version=4)), source)
    nb = nbformat.read(source, as_version=4)
    if student == "japanese":
        skeleton(source, tmp / "src")
        nb = japanese(source, tmp / "src")
        if name == "wrong":
            nb.cells = [cell for cell in nb.cells if cell.id != LANG_CELL_ID]
    (folder / student).mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, folder / student / f"{name}.ipynb")
    shutil.rmtree(tmp / "src")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ja")
    submitted = tmp / "submitted"
    for student in ("english", "japanese"):
        submit(ROOT / "solutions" / f"{NOTEBOOK}.ipynb", submitted, student, "solution", tmp)
        submit(ROOT / "solutions" / f"{NOTEBOOK}.ipynb", submitted, student, "wrong", tmp, wrong)
        submit(ROOT / "exercises" / f"{NOTEBOOK}.ipynb", submitted, student, "stub", tmp)
    done = subprocess.run([sys.executable, "-m", "course", "grade", submitted, "--out", tmp / "out",
                           "--timeout", "60"],
                          # a loaded machine: no call times out
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return {
        (student, name): json.loads((tmp / "out" / student / f"{name}.json").read_text())
        for student in ("english", "japanese")
        for name in ("solution", "wrong", "stub")
    }, tmp / "out"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["solution", "wrong", "stub"])
def test_the_same_grade_ids_and_marks_in_both_languages(graded, name):
    reports, _ = graded
    en, ja = reports["english", name], reports["japanese", name]
    assert per_exercise(ja) == per_exercise(en) and ja["score"] == en["score"]
    assert [
        (t["name"].split(": ")[0], t["score"], t["max_score"], t["status"]) for t in ja["tests"]
    ] == [(t["name"].split(": ")[0], t["score"], t["max_score"], t["status"]) for t in en["tests"]]
    full = shipped().exercise("first_violation").points
    assert (
        (en["score"] == full)
        if name == "solution"
        else (0 < en["score"] < full)
        if name == "wrong"
        else en["score"] == 0
    )


@pytest.mark.slow
def test_the_japanese_reports_are_in_japanese(graded):
    reports, _ = graded
    score = "{notebook}: {score:g}/{total:g} points ({group})"
    for name in ("solution", "wrong", "stub"):
        en, ja = reports["english", name], reports["japanese", name]
        numbers = dict(notebook=f"{name}.ipynb", score=en["score"],
                       total=sum(t["max_score"] for t in en["tests"]))
        # its title
        assert en["output"].splitlines()[0] == score.format(**numbers, group="Messages and blocks")
        assert ja["output"].splitlines()[
            0
        ] == "{notebook}: {score:g}/{total:g} 点（{group}）".format(
            **numbers, group="メッセージとブロック"
        )
        for e, j in zip(en["tests"], ja["tests"], strict=True):
            if e["status"] == "passed":
                assert (e["output"].split("\n")[0], j["output"].split("\n")[0]) == (
                    "passed",
                    "合格",
                )
    for e, j in zip(reports["english", "stub"]["tests"], reports["japanese", "stub"]["tests"],
                    strict=True):
        error = e["output"].split("(", 1)[1].split(")\n", 1)[0]
        assert (e["output"], j["output"]) == (STUB_EN.format(error=error),
                                              STUB_JA.format(error=error))
    for e, j in zip(reports["english", "wrong"]["tests"], reports["japanese", "wrong"]["tests"],
                    strict=True):
        cell = int(re.search(r"Note: cell (\d+) ", e["output"])[1])
        assert e["output"].endswith(f"\nNote: cell {cell} called sys.exit()/exit() (code 3) and "
                                    "was skipped")
        assert j["output"].endswith(
            f"\n注記：セル {cell}：sys.exit()/exit() を呼んだ（終了コード 3）ので、飛ばしました")


@pytest.mark.slow
def test_the_japanese_feedback_page_is_in_japanese(graded):
    _, out = graded
    en, ja = (
        (out / "english" / "feedback.html").read_text(),
        (out / "japanese" / "feedback.html").read_text(),
    )
    assert en.startswith("<!doctype html><html><head>") and "<h1>Feedback for english</h1>" in en
    assert "<tr><th>check</th><th>result</th><th>points</th><th>why, and a hint</th></tr>" in en
    full = f"{shipped().exercise('first_violation').points:g}"
    assert f"<h2>solution (Messages and blocks): {full}/{full} points</h2>" in en
    assert "<td class='passed'>passed</td>" in en
    # each exercise's title
    assert "<th colspan='4'>Checking the pairing invariant (first_violation)</th>" in en
    assert "<pre>solution.ipynb:" not in en  # the notebook's name once, in the heading
    assert (
        ja.startswith('<!doctype html><html lang="ja"><head>')
        and ("<h1>japanese さんへのフィードバック</h1>") in ja
    )
    assert "<tr><th>チェック</th><th>結果</th><th>点数</th><th>理由とヒント</th></tr>" in ja
    assert (
        f"<h2>solution（メッセージとブロック）：{full}/{full} 点</h2>" in ja
        and ("<td class='passed'>合格</td>") in ja
    )
    assert "<td class='failed'>不合格</td>" in ja


def test_only_ja_and_en_in_the_metadata_choose_the_language():
    def lang(course) -> str:
        return language(Submission(Path("x.ipynb"), metadata={"course": course}))

    assert [lang({"lang": "ja"}), lang({"lang": "en"}), lang({"lang": "fr"}),
            lang({"lang": ["ja"]}), lang("ja"), lang({})] == ["ja", "en", "en", "en", "en", "en"]


def test_a_check_cell_in_a_japanese_notebook_reports_in_japanese(monkeypatch, capsys):
    def first_violation(messages):
        raise NotImplementedError("Exercise first_violation")

    exercise = shipped().exercise("first_violation")
    monkeypatch.setenv("COURSE_LANG", "ja")  # what a Japanese notebook's first code cell sets
    assert check("first_violation", first_violation) == 0
    with speaking("ja"):
        title = tr(exercise.title)
    error = "NotImplementedError: Exercise first_violation"
    assert capsys.readouterr().out == (
        f"first_violation（{title}）：チェック {len(exercise.checks)} 件中 0 "
        f"件に合格、0/{exercise.points:g} 点\n"
        + "\n".join("  " + line for line in STUB_JA.format(error=error).splitlines()) + "\n")
