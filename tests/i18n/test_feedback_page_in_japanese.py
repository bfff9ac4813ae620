"""The feedback page in Japanese: the lesson's and the exercises' titles (full-width parentheses),
the total, a notebook graded on its own not greeted as a person, and result and points cells that
never break a word apart."""
from __future__ import annotations

import re
from html import unescape

from english_phrases import english_phrases

from course.grading.classroom.feedback import feedback_html

REPORT = {"score": 1.0, "output": "10_managing_the_context.ipynb: 1/3 点（文脈の管理）", "tests": [
    {"name": "clear_old_results: 古い結果を消す", "score": 1.0, "max_score": 1.0,
     "status": "passed", "output": ""},
    {"name": "clear_old_results: messages は変更しない", "score": 0.0, "max_score": 2.0,
     "status": "failed", "output": "[] と keep=1 のとき：戻り値：あなたの関数は 1、参照解答は 2"}]}


def text_of(page: str) -> list[str]:
    """What a reader sees: the page's text, line by line, outside its style sheet."""
    body = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
    return [unescape(line) for line in re.sub(r"<[^>]+>", "\n", body).splitlines() if line.strip()]


def test_a_students_page_names_the_lesson_the_exercises_and_the_total(speak):
    speak("ja")
    page = feedback_html("hana", {"10_managing_the_context": REPORT, "again": REPORT})
    assert "<h1>hana さんへのフィードバック</h1>" in page and "<p>合計：2/6 点</p>" in page
    assert "<h2>10_managing_the_context（文脈の管理）：1/3 点</h2>" in page
    assert "<th colspan='4'>古いツール結果の消去（clear_old_results）</th>" in page
    assert [p for line in text_of(page) for p in english_phrases(line)] == []


def test_a_notebook_graded_on_its_own_is_no_person(speak):
    speak("ja")
    page = feedback_html("10_managing_the_context", {"10_managing_the_context": REPORT},
                         person=False)
    assert "さんへ" not in page and "<h1>10_managing_the_context のフィードバック</h1>" in page


def test_a_result_or_points_cell_never_wraps(lang):
    page = feedback_html("hana", {"x": REPORT})
    assert "td.passed,td.failed,td.points{white-space:nowrap}" in page
    assert "<td class='failed'>" in page and "<td class='points'>0/2</td>" in page
