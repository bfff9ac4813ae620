"""The explorer, the message-list view, make_client's errors, the plots and the lesson titles speak
Japanese under COURSE_LANG=ja, and English, as before, without it."""
from __future__ import annotations

import re

import pytest

from course.client import LiveAPIUnavailable, make_client
from course.lessons import LESSONS
from course.viz import MessageList
from course.viz.explorer import Explorer

UNANSWERED = [{"role": "user", "content": "hi"},
              {"role": "assistant",
               "content": [{"type": "tool_use", "id": "t1", "name": "search", "input": {}}]},
              {"role": "user", "content": "next"}]
SPOKEN = {
    "en": {"outcome": "outcome of the run: success after 3 calls, 2 turns",
           "buttons": ["first", "back", "play / pause", "next", "last"],
           "head": "MessageList: 3 messages, broken: P2",
           "unpaired": '[1] assistant: tool_use #1 search {} id=t1  <- no tool_result in the next '
                       'user message',
           "rule": "! P2 (each tool_use is answered, in order, by tool_result blocks leading the "
                   "next user message) broken at messages[1]: ",
           "live": "live=True needs the ANTHROPIC_API_KEY environment variable; without it, use "
                   "the local API (live=False)",
           "title": "Input tokens per call"},
    "ja": {"outcome": "実行の結果：success（呼び出し 3 回、2 ターン）",
           "buttons": ["最初", "戻る", "再生 / 一時停止", "次へ", "最後"],
           "head": "MessageList：メッセージ 3 件、破れています：P2",
           "unpaired": "[1] assistant: tool_use #1 search {} id=t1  <- 次の user メッセージに "
                       "tool_result がありません",
           "rule": "! P2（各 tool_use には、次の user メッセージの先頭にある tool_result "
                   "ブロックが順に答える）"
                   "が messages[1] で破れています：",
           "live": "live=True には環境変数 ANTHROPIC_API_KEY が必要です。ない場合はローカル "
                   "API（live=False）を"
                   "使ってください",
           "title": "呼び出しごとの入力トークン"},
}
TITLES_JA = ["はじめに", "メッセージとブロック", "モデルは関数である", "最初のループ", "停止",
             "エラーと関門",
             "ほかの停止理由", "文脈の成長と予算", "並列のツール呼び出し", "ガードと可観測性",
             "文脈の管理", "ワークフローとエージェント", "3 つのループ", "実際の API", "Agent SDK"]




def test_the_explorer_labels_its_controls_and_states_the_outcome(lang):
    e = Explorer("aurora_run")
    assert re.sub("<[^>]+>", "", e.outcome_label.value) == SPOKEN[lang]["outcome"]
    assert [b.description for b in (e.first, e.back, e.playing, e.next, e.last)] == SPOKEN[lang][
        "buttons"
    ]
    # the call stays Python
    assert repr(e).endswith({"en": "): success after 3 calls, 2 turns; step 6/6",
                             "ja": "): success（呼び出し 3 回、2 ターン）、ステップ 6/6"}[lang])


def test_the_message_list_names_what_is_broken(lang):
    lines = repr(MessageList(UNANSWERED)).splitlines()
    assert lines[0] == SPOKEN[lang]["head"]
    assert lines[2] == SPOKEN[lang]["unpaired"]
    assert lines[4].startswith(SPOKEN[lang]["rule"])


def test_make_client_says_what_the_live_api_needs(lang, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(LiveAPIUnavailable) as raised:
        make_client(live=True)
    assert str(raised.value) == SPOKEN[lang]["live"]


def test_a_plot_speaks_the_language_and_draws_every_glyph(lang):
    import io
    import warnings

    from course.viz import plots

    fig = plots.token_growth([100, 200])
    assert fig.axes[0].get_title() == SPOKEN[lang]["title"]
    japanese = "IPAexGothic" in fig.axes[0].title.get_fontfamily()  # matplotlib-fontja's font
    assert japanese == (lang == "ja")  # an English plot is drawn as before
    with warnings.catch_warnings():
        # a glyph missing from the fonts is a warning (and a box on the plot)
        warnings.simplefilter("error")
        fig.savefig(io.BytesIO(), format="png")


def test_lesson_00_lists_the_lessons_in_the_language_spoken(lang):
    titles = [title for _, title in LESSONS]
    if lang == "en":
        assert titles[0] == "Start here" and titles[-1] == "The Agent SDK"
    else:
        assert titles == TITLES_JA
    assert [title for _, title in LESSONS[3:5]] == titles[3:5]  # a slice speaks as the whole does
