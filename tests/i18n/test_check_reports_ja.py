"""Check reports of lessons 01-06 speak Japanese with COURSE_LANG=ja and English without it: the same checks fail
(by grade_id, in order) with the same marks, and each why and hint is the Japanese sentence (identifiers, values
and code stay as they are)."""
from __future__ import annotations

from pathlib import Path

import pytest

from course.grading import registry
from course.grading.mark import run_exercise
from course.grading.notebook_context import NotebookContext
from course.translation import JAPANESE  # a kana or kanji

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = registry.shipped()
MISTAKES = sorted(p for p in (ROOT / "course" / "grading" / "mistakes").glob("l[01][0-9]_*.py"))




def failures(stem: str) -> list:
    """The Marks of the checks that a wrong solution of course/grading/mistakes/ fails."""
    meta: dict = {}
    path = ROOT / "course" / "grading" / "mistakes" / f"{stem}.py"
    exec(compile(path.read_text(), str(path), "exec"), meta)
    exercise = REGISTRY.exercise(meta["GRADE_ID"])
    return [m for m in run_exercise(exercise, NotebookContext(meta[exercise.function], REGISTRY)) if not m.passed]


REPORTS = [  # (mistake, (why, hint) in English, (why, hint) in Japanese): one failed check of each
    ("l01_no_p3",
     ("a result with no tool_use before it: expected ('P3', 2), your function returned None",
      "accepting a tool_result that answers no tool_use right before it (P3)"),
     ("前に tool_use のない結果がある：期待値は ('P3', 2) ですが、関数は None を返しました",
      "直前のどの tool_use にも答えていない tool_result を受け入れています（P3）")),
    ("l02_only_new_question",
     ("the second request sent 1 message(s): only the new question",
      "sending only the new question: the API remembers nothing, every request carries the whole conversation"),
     ("2 回目のリクエストが送ったメッセージは 1 件で、新しい質問だけです",
      "新しい質問だけを送っています。API は何も覚えていないので、どのリクエストも会話全体を送ります")),
    ("l03_off_by_one",
     ("max_turns=2 allows Aurora Run's 2 turns: 2 calls, the answer was None, expected '1974' after 3 calls",
      "an off-by-one cap: max_turns counts tool-use turns, so at most max_turns + 1 calls"),
     ("max_turns=2 なら Aurora Run の 2 ターンが収まります。呼び出しが 2 回、回答は None でした。"
      "期待値は 3 回の呼び出しの後の '1974'",
      "ターン上限が 1 ずれています。max_turns はツール使用ターンを数えるので、呼び出しは最大 max_turns + 1 回です")),
    ("l04_tool_calls_as_turns",
     ("example 4.3: turns = 5, expected 3",
      "counting tool calls as turns: one response may ask for several tools in one turn"),
     ("例 4.3：turns = 5。期待値は 3",
      "ツール呼び出しをターンとして数えています。1 つの応答が 1 ターンで複数のツールを求めることがあります")),
    ("l05_deny_by_name",
     ("with deny delete_page(Aurora*), the Northern Lights call was not run and its result has is_error True; "
      "it matches no rule, so it runs and succeeds",
      "matching a deny rule by the tool name only: `delete_page(Aurora*)` refuses only the matching calls"),
     ("deny が delete_page(Aurora*) のとき、Northern Lights の呼び出しは実行されず、"
      "その結果の is_error は True でした。どのルールにも一致しないので、実行されて成功するはずです",
      "deny のルールをツール名だけで照合しています。`delete_page(Aurora*)` が拒否するのは一致する呼び出しだけです")),
    ("l06_continue_message",
     ("continuation 1 is not the prompt and the 1 paused reply so far: 3 messages, expected 2: "
      "yours adds message 3 (user [text 'Please continue.'])",
      "adding a message before sending a paused turn back: send h.a as it is"),
     ("継続リクエスト 1 が「プロンプトと、それまでに一時停止した応答 1 件」になっていません："
      "メッセージが 3 件です（期待値は 2 件）。余分なのはメッセージ 3（user [text 'Please continue.']）",
      "一時停止したターンを送り返す前にメッセージを足しています。h.a をそのまま送ります")),
]


@pytest.mark.parametrize("stem, english, japanese", REPORTS, ids=[r[0] for r in REPORTS])
def test_a_failed_check_reads_in_the_language_chosen(stem, english, japanese, speak):
    speak(None)
    assert english in [(m.reason, m.hint) for m in failures(stem)]
    speak("ja")
    assert japanese in [(m.reason, m.hint) for m in failures(stem)]


@pytest.mark.parametrize("path", MISTAKES, ids=lambda p: p.stem)
def test_every_why_and_hint_of_every_lesson_is_japanese(path, speak):
    speak(None)
    english = failures(path.stem)
    speak("ja")
    japanese = failures(path.stem)
    assert [(m.name.split(": ")[0], m.score) for m in japanese] == [(m.name.split(": ")[0], m.score) for m in english]
    for en, ja in zip(english, japanese):
        assert JAPANESE.search(ja.reason), f"{en.name}: the why is not Japanese: {ja.reason}"
        assert bool(ja.hint) == bool(en.hint) and (not ja.hint or JAPANESE.search(ja.hint)), \
            f"{en.name}: the hint {en.hint!r} is {ja.hint!r} in Japanese"
