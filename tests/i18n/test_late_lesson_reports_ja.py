"""A check report speaks Japanese under COURSE_LANG=ja and stays English without it: the oracle's
words (the case, where yours and the reference's differ) and the known mistake's hint, on three of
lesson 07's known mistakes."""
from __future__ import annotations

from pathlib import Path

import pytest

from course.grading.judging.notebook_context import check

MISTAKES = Path(__file__).resolve().parents[2] / "course" / "grading" / "judging" / "mistakes"


def mistake(stem: str, function: str):
    """A known mistake, course/grading/judging/mistakes/<stem>.py."""
    namespace: dict = {}
    path = MISTAKES / f"{stem}.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[function]


# (grade_id, submission, (why, hint) in English, the same in Japanese)
REPORTS = [
    ("budget_loop", mistake("l07_budget_strictly_over", "budget_loop"),
     ("with a model that 1) asks for search + search 2) asks for search 3) answers '1974'; "
      "max_budget_usd=0.0000258: your function sent 2 requests; the reference sends 1",
      "stopping only once the spend is past the budget: the text says spent_usd >= max_budget_usd"),
     ("次のように応答するモデル（1) search + search を求める 2) search を求める 3) '1974' "
      "と回答する）; max_budget_usd=0.0000258 のとき：あなたの関数が送ったリクエストは 2 "
      "件、参照解答は 1 件です",
      "支出が予算を超えてから止めています。問題文の条件は spent_usd >= max_budget_usd です")),
    ("max_calls", mistake("l07_window_rounded", "max_calls"),
     ("with max_calls(200000, 5000, 2000): the return value: yours 99, the reference's 98",
      "the window bound K <= (W - s)/c + 1 counts whole calls: round down"),
     ("max_calls(200000, 5000, 2000) のとき：戻り値：あなたの関数は 99、参照解答は 98",
      "コンテキストウィンドウによる上界 K <= (W - s)/c + 1 "
      "は呼び出しの回数なので整数です。切り捨てます")),
    ("user_turn", mistake("l07_text_first", "user_turn"),
     ("with user_turn(results 1-1, notes ['Also check the novelist.']): the return value at "
      "content[0].type: yours 'text', the reference's 'tool_result'",
      "exercise 10.2: text before the tool_result blocks breaks P2"),
     ("user_turn（結果 1-1、notes ['Also check the novelist.']） "
      "のとき：戻り値（content[0].type）："
      "あなたの関数は 'text'、参照解答は 'tool_result'",
      "『模型』の演習 10.2：tool_result ブロックより前にテキストを置くと P2 が破れます")),
]


def marks(grade_id: str, fn) -> list[tuple[str, str]]:
    """(why, hint) of every check `fn` fails, through check() as a student runs it (it loses
    marks)."""
    from course.grading.judging.notebook_context import NotebookContext
    from course.grading.judging.registry import shipped
    from course.grading.marks.mark import run_exercise

    registry = shipped()
    assert check(grade_id, fn) < registry.exercise(grade_id).points
    return [(m.reason, m.hint) for m in run_exercise(registry.exercise(grade_id),
                                                     NotebookContext(fn, registry))
            if not m.passed]


@pytest.mark.parametrize("grade_id, fn, english, japanese", REPORTS, ids=[r[0] for r in REPORTS])
def test_a_failing_report_reads_in_japanese_with_course_lang_ja(
    grade_id, fn, english, japanese, speak, capsys):
    speak("ja")
    assert japanese in marks(grade_id, fn)
    printed = capsys.readouterr().out
    assert "合格" in printed and "with a model" not in printed and "the reference" not in printed, (
        printed
    )


@pytest.mark.parametrize("grade_id, fn, english, japanese", REPORTS, ids=[r[0] for r in REPORTS])
def test_the_same_report_stays_english_without_course_lang(grade_id, fn, english, japanese, speak,
                                                           capsys):
    speak(None)
    assert english in marks(grade_id, fn)
    printed = capsys.readouterr().out
    assert "checks passed" in printed and "参照解答" not in printed, printed
