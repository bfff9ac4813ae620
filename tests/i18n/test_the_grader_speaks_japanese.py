"""The grader's command line under COURSE_LANG=ja: every line it prints is Japanese (the batch's
count, "no notebook found", the isolation warning, the usage errors), the progress line names a
lesson's exercises by the lesson's title, and a run that found nothing to grade exits non-zero with
the reason."""
from __future__ import annotations

import argparse

import pytest
from english_phrases import english_phrases

from course.contract.exercise import Exercise
from course.grading.classroom.batch import grade_batch, score_line
from course.grading.classroom.cli import add_commands
from course.grading.classroom.sandbox.confinement import MODES, Confinement
from course.grading.judging.registry import Registry
from course.grading.marks.mark import Mark
from course.lessons import LESSONS


def command(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    return parser.parse_args(argv)


def test_an_empty_folder_is_reported_in_japanese_and_the_command_fails(speak, tmp_path, capsys):
    speak("ja")
    (tmp_path / "empty").mkdir()
    args = command("grade", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--isolation",
                   "none")
    assert args.func(args) != 0
    said = capsys.readouterr().err.splitlines()
    assert (
        said[0].startswith("提出 0 件")
        and "ノートブックが見つかりません" in said[1]
        and "<student>/" in said[1]
    )
    assert said[2].startswith("警告：")  # isolation "none" leaves things open
    assert [english_phrases(line) for line in said] == [[], [], []]


def test_an_empty_folder_for_gradescope_still_gets_its_results_and_exits_0(speak, tmp_path):
    speak("ja")
    (tmp_path / "empty").mkdir()
    args = command("grade", str(tmp_path / "empty"), "--out", str(tmp_path / "out"), "--isolation",
                   "none", "--results", str(tmp_path / "results.json"))
    assert args.func(args) == 0 and (tmp_path / "results.json").is_file()


@pytest.mark.parametrize("argv", [["grade", "missing.ipynb", "--out", "out"],
                                  ["grade", ".", "--out", "out", "--tests", "missing"],
                                  ["grade", ".", "--out", "out", "--jobs", "0"],
                                  ["grade", ".", "--out", "out", "--limit", "speed=9"],
                                  ["grade", ".", "--out", "out", "--limit", "memory=0"],
                                  ["assign", "--solutions", "missing"]])
def test_the_usage_errors_are_japanese(speak, capsys, argv):
    speak("ja")
    args = command(*argv)
    assert args.func(args) == 2
    said = capsys.readouterr().err
    assert said.startswith("エラー：") and english_phrases(said) == []


def test_the_batch_counts_in_japanese(speak, tmp_path):
    speak("ja")
    said = []
    grade_batch([tmp_path], tmp_path / "out", registry=Registry({}, {}), log=said.append,
                isolation="none")
    assert said[0] == "提出 0 件：採点済み 0 件、採点するもの 0 件（隔離：none）"


def test_the_progress_line_names_the_lessons_exercises_by_the_lessons_title(lang):
    exercises = [Exercise("agent_loop", "agent_loop", "Fix a broken loop", [],
                          "solutions/03_the_first_loop.ipynb"),
                 Exercise("ask", "ask", "Ask", [], "tests/checks/fixture.ipynb")]
    line = score_line(exercises, [Mark("agent_loop: runs", 2.0, 3.0, "")])
    title = dict(LESSONS)["03_the_first_loop"]
    assert line == (f"2/3 points ({title}, fixture)" if lang == "en"
                    else f"2/3 点（{title}、fixture）")
    assert "03_the_first_loop" not in line and (lang == "en" or title != "The first loop")


def test_an_isolation_this_machine_lacks_is_refused_in_japanese(speak, capsys):
    impossible = [m for m in MODES if m != "none" and not _possible(m)]
    if not impossible:
        pytest.skip("every isolation mode works on this machine")
    speak("ja")
    args = command("grade", ".", "--out", "out", "--isolation", impossible[0])
    assert args.func(args) == 2
    said = capsys.readouterr().err
    assert (
        said.startswith(f"エラー：隔離 {impossible[0]!r} はここでは使えません")
        and english_phrases(said) == []
    )


def _possible(mode: str) -> bool:
    try:
        Confinement.detect(mode)
    except ValueError:
        return False
    return True
