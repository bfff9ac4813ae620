"""A whole class in one batch: submitted/<student>/<notebook>.ipynb and nbgrader's
submitted/<student>/<assignment>/<notebook>.ipynb, into reports, a gradebook and a feedback page per
student."""
from __future__ import annotations

import csv
import json

import pytest
from hostile.notebooks import ASK, CHECKS, fixture_registry, write

from course.grading.classroom.batch import Budget, grade_batch
from course.grading.classroom.submission import collect
from course.grading.judging.registry import Registry

pytestmark = pytest.mark.slow
SCRIPT = ASK.replace("return reply.content[0].text", "return '<script>alert(1)</script>'")


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    submitted = root / "submitted"
    for folder in ("alice", "bob/assignment1", "carol", ".ipynb_checkpoints"):
        (submitted / folder).mkdir(parents=True)
    write(submitted / "alice" / "fixture.ipynb")
    write(submitted / "bob" / "assignment1" / "fixture.ipynb",
          ask=ASK.replace("def ask(", "def ask_model("))
    write(submitted / "carol" / "fixture.ipynb", ask=SCRIPT)
    out = root / "out"
    reports = grade_batch([submitted], out, jobs=2, budget=Budget(call=10),
                          registry=fixture_registry(),
                          log=lambda line: None)  # visible checks: the page shows them
    return out, reports


def test_each_student_gets_a_gradescope_report_per_notebook(graded):
    out, reports = graded
    assert [r["score"] for r in reports] == [5, 3, 4]
    for student, score in (("alice", 5), ("bob", 3), ("carol", 4)):
        assert json.loads((out / student / "fixture.json").read_text())["score"] == score


def test_the_gradebook_has_one_row_per_student_a_column_per_exercise_and_a_total(graded):
    out, _ = graded
    rows = list(csv.reader((out / "gradebook.csv").open()))
    assert rows == [["student", "ask", "lookup", "total"], ["alice", "2", "3", "5"],
                    ["bob", "0", "3", "3"], ["carol", "1", "3", "4"]]


def test_the_feedback_page_shows_each_check_with_why_and_hint_escaped(graded):
    out, _ = graded
    bob = (out / "bob" / "feedback.html").read_text()
    assert "Feedback for bob" in bob and "fixture: 3/5 points" in bob
    assert bob.count("class='passed'") == 2 and bob.count("class='failed'") == 2
    assert "does not define ask()" in bob
    carol = (out / "carol" / "feedback.html").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in carol and "<script>" not in carol
    assert "Hint: return the text of the reply" in carol


def test_two_notebooks_of_one_student_with_one_name_are_that_students_problem(tmp_path):
    for folder in ("dan/a1", "dan/a2"):
        (tmp_path / folder).mkdir(parents=True)
        write(tmp_path / folder / "fixture.ipynb")
    (tmp_path / "erin").mkdir()
    write(tmp_path / "erin" / "fixture.ipynb")
    found = collect([tmp_path])
    assert found["dan/fixture"].problem == ("2 notebooks are named fixture.ipynb "
                                            "(a1/fixture.ipynb, a2/fixture.ipynb); the grader "
                                            "cannot tell which one to grade: keep one")
    assert not found["erin/fixture"].problem


def test_two_notebooks_given_by_path_that_would_share_a_report_are_refused(tmp_path):
    for folder in ("a1", "a2"):
        (tmp_path / folder).mkdir()
        write(tmp_path / folder / "fixture.ipynb")
    with pytest.raises(ValueError, match="share a report"):
        collect([tmp_path / "a1" / "fixture.ipynb", tmp_path / "a2" / "fixture.ipynb"])


def test_a_folder_of_notebooks_grades_each_and_gives_each_its_feedback_page(tmp_path):
    folder = tmp_path / "submissions"
    folder.mkdir()
    write(folder / "dana.ipynb")
    write(folder / "erik.ipynb", ask=SCRIPT)
    # a link in the folder is not followed
    (folder / "linked.ipynb").symlink_to(folder / "dana.ipynb")
    out = tmp_path / "out"
    reports = grade_batch([folder], out, CHECKS, jobs=2, budget=Budget(call=10),
                          registry=Registry({}, {}), log=lambda line: None)
    assert [r["score"] for r in reports] == [5, 4, 0]  # the link: a zero, with the reason
    assert (out / "dana.feedback.html").is_file() and (out / "erik.feedback.html").is_file()
    assert "link" in reports[2]["output"]


def test_a_folder_with_no_notebook_says_why_nothing_was_graded(tmp_path):
    (tmp_path / "empty").mkdir()
    said = []
    assert grade_batch([tmp_path / "empty"], tmp_path / "out", CHECKS, registry=Registry({}, {}),
                       log=said.append) == []
    assert (
        said[0].startswith("0 submissions")
        and "no notebook found in" in said[1]
        and "<student>/" in said[1]
    )
