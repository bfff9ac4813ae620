"""The check reports of lessons 07-13 speak Japanese under COURSE_LANG=ja and stay English without it."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from course.grading.checks import exercise
from course.grading.notebook_context import check

MISTAKES = Path(__file__).resolve().parents[2] / "course" / "grading" / "mistakes"


def mistake(stem: str, function: str):
    """A wrong submission of the feedback corpus, course/grading/mistakes/<stem>.py."""
    namespace: dict = {}
    path = MISTAKES / f"{stem}.py"
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[function]


def max_calls(window, s, c):
    """Lesson 07's window bound, rounded up instead of down."""
    return math.ceil((window - s) / c) + 1


def repeated_call(calls, max_repeats=3):
    """Lesson 09's repeat detector, comparing tool names only."""
    run = 0
    for i, (name, _) in enumerate(calls):
        run = run + 1 if i and calls[i - 1][0] == name else 1
        if run == max_repeats:
            return i
    return None


def cache_costs(prefix_tokens, calls, price_in, min_cacheable=1024):
    """Lesson 10's cache prices, the write priced like a plain input."""
    usd = prefix_tokens * price_in / 1e6
    return calls * usd, usd * (1 + 0.1 * (calls - 1))


def choose_backend(env):
    """Lesson 13's backend choice, live as soon as a key exists."""
    return "live" if env.get("ANTHROPIC_API_KEY") else "local"


# (grade_id, submission, (why, hint) in English, the same in Japanese)
REPORTS = [
    ("max_calls", max_calls,
     ("max_calls(200000, 5000, 2000) returned 99; expected 98",
      "the window bound K <= (W - s)/c + 1 counts whole calls: round down"),
     ("max_calls(200000, 5000, 2000) が 99 を返しました。期待値は 98",
      "コンテキストウィンドウによる上界 K <= (W - s)/c + 1 は呼び出しの回数なので整数です。切り捨てます")),
    ("repeated_call", repeated_call,
     ("repeated_call([['search', {'q': 'a'}], ['search', {'q': 'b'}], ['search', {'q': 'a'}], "
      "['search', {'q': 'a'}], ['search', {'q': 'a'}]], 3) returned 2; expected 4",
      "comparing tool names only: the same tool with another input is progress"),
     ("repeated_call([['search', {'q': 'a'}], ['search', {'q': 'b'}], ['search', {'q': 'a'}], "
      "['search', {'q': 'a'}], ['search', {'q': 'a'}]], 3) が 2 を返しました。期待値は 4",
      "ツール名だけを比べています。同じツールでも、入力が違えば進展です")),
    ("cache_costs", cache_costs,
     ("cache_costs(50000, 10, 3.0) returned (1.5, 0.285); expected (1.500000, 0.322500)",
      "pricing the cache write like a plain input: a 5-minute write costs 1.25x"),
     ("cache_costs(50000, 10, 3.0) が (1.5, 0.285) を返しました。期待値は (1.500000, 0.322500)",
      "キャッシュの書き込みを通常の入力と同じ価格にしています。5 分キャッシュの書き込みは 1.25 倍です")),
    ("goal_loop", mistake("l12_goal_no_stall", "goal_loop"),
     ("a model that never uses a tool: 10 calls, returned ('max_rounds', 10); expected 2 calls and ('stalled', 2)",
      "no stall detection: rounds without any tool call are not progress"),
     ("ツールを一度も使わないモデル：呼び出し 10 回で、('max_rounds', 10) を返しました。"
      "期待値は 2 回と ('stalled', 2)",
      "停滞を検出していません。ツール呼び出しが 1 つもない周は進展ではありません")),
    ("choose_backend", choose_backend,
     ("choose_backend({'ANTHROPIC_API_KEY': '<key>'}) returned 'live', expected 'local'",
      "going live just because a key exists: the learner asks for it with COURSE_LIVE=1"),
     ("choose_backend({'ANTHROPIC_API_KEY': '<key>'}) が 'live' を返しました。期待値は 'local'",
      "API キーがあるというだけで実際の API を使っています。使うのは、学習者が COURSE_LIVE=1 で求めたときだけです")),
]


def report(grade_id: str, fn, capsys) -> str:
    """What check() prints for `fn` (it loses marks: the report is that of a failing submission)."""
    assert check(grade_id, fn) < exercise(grade_id).points
    return capsys.readouterr().out


@pytest.mark.parametrize("grade_id, fn, english, japanese", REPORTS, ids=[r[0] for r in REPORTS])
def test_a_failing_report_reads_in_japanese_with_course_lang_ja(grade_id, fn, english, japanese, speak, capsys):
    speak("ja")
    printed = report(grade_id, fn, capsys)
    assert [sentence for sentence in japanese if sentence not in printed] == [], printed
    assert [sentence for sentence in english if sentence in printed] == [], printed


@pytest.mark.parametrize("grade_id, fn, english, japanese", REPORTS, ids=[r[0] for r in REPORTS])
def test_the_same_report_stays_english_without_course_lang(grade_id, fn, english, japanese, speak, capsys):
    speak(None)
    printed = report(grade_id, fn, capsys)
    assert [sentence for sentence in english if sentence not in printed] == [], printed
    assert [sentence for sentence in japanese if sentence in printed] == [], printed
