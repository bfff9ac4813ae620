"""The pairing invariant's violations, the loop's stop details, the explorer's last frame and the
scenario titles speak Japanese under COURSE_LANG=ja, and English, as before, without it; what the
loop sends the model does not change with the language."""
from __future__ import annotations

import pytest

from course.editions.translation import JAPANESE, WORDS
from course.loop import Limits
from course.messages import assistant, text, tool_result, tool_use, user, violations
from course.scenarios import SCENARIOS
from course.viz import MessageList
from course.viz.explorer import Explorer

ASKS = assistant(tool_use("t1", "search", {}), tool_use("t2", "search", {}))
# a history, and each violation it holds as the course states it: (English, Japanese)
BROKEN = [
    ([], [("P1 at messages[0]: the list is empty; the first message must be from the user",
           "messages[0] で P1 が破れています：メッセージ列が空です。"
           "最初のメッセージは user からでなければなりません")]),
    ([assistant("hi")], [
        ("P1 at messages[0]: the first message is from 'assistant', not 'user'",
         "messages[0] で P1 が破れています：最初のメッセージの役割が 'user' ではなく 'assistant' "
         "です"),
        ("P1 at messages[0]: the last message is from 'assistant', not 'user'",
         "messages[0] で P1 が破れています：最後のメッセージの役割が 'user' ではなく 'assistant' "
         "です")]),
    ([user("q"), ASKS], [
        ("P1 at messages[1]: the last message is from 'assistant', not 'user'",
         "messages[1] で P1 が破れています：最後のメッセージの役割が 'user' ではなく 'assistant' "
         "です"),
        ("P2 at messages[1]: tool_use ['t1', 't2'] has no message after it",
         "messages[1] で P2 が破れています：tool_use ['t1', 't2'] の後にメッセージがありません")]),
    ([user("q"), ASKS, assistant("no"), user("go on")], [
        ("P2 at messages[1]: the message after tool_use ['t1', 't2'] is from 'assistant', not "
         "'user'",
         "messages[1] で P2 が破れています：tool_use ['t1', 't2'] の次のメッセージの役割が 'user' "
         "ではなく 'assistant' です")]),
    ([user("q"), ASKS, user(tool_result("t2", "b"), tool_result("t1", "a"))], [
        ("P2 at messages[1]: the first 2 blocks should be tool_result for ['t1', 't2'] in that "
         "order, found ['t2', 't1']",
         "messages[1] で P2 が破れています：先頭の 2 個のブロックは ['t1', 't2'] への tool_result "
         "がこの順に"
         "並ぶはずですが、実際は ['t2', 't1'] です")]),
    ([user("q"), ASKS,
      user(tool_result("t1", "a"), tool_result("t2", "b"), text("and"), tool_result("t1", "a"))], [
        ("P3 at messages[2]: block 3 is a tool_result for 't1' after the leading results",
         "messages[2] で P3 が破れています：ブロック 3 は 't1' への tool_result ですが、"
         "先頭の結果より後ろにあります")]),
    ([user(text("q"), tool_result("t9", "x"))], [
        ("P3 at messages[0]: block 1 is a tool_result for 't9' without a tool_use right before it",
         "messages[0] で P3 が破れています：ブロック 1 は 't9' への tool_result ですが、"
         "直前に tool_use がありません")]),
]
# a scenario, its limits, and the Result's detail: (English, Japanese)
ENDINGS = [
    ("aurora_run", Limits(),
     ("the model ended its turn (end_turn)", "モデルがターンを終えました（end_turn）")),
    ("always_tool", Limits(max_turns=2),
     ("after turn 2 the model still asks for tools; max_turns=2",
                                          "ターン 2 "
                                          "の後もモデルがツールを求めています。max_turns=2 です")),
    # the Japanese edition's prompt and tool description are Japanese, and shorter in tokens: its
    # own numbers
    ("aurora_run", Limits(max_total_tokens=10), ("120 tokens >= max_total_tokens 10",
                                                 "96 トークンが max_total_tokens 10 に達しました")),
    ("aurora_run", Limits(max_budget_usd=0.000001), ("spent $0.000016 >= max_budget_usd $1e-06",
                                                     "支出 $0.000014 が max_budget_usd $1e-06 "
                                                     "に達しました")),
    ("truncated", Limits(),
     ("stop_reason max_tokens {}: no answer", "stop_reason max_tokens {}：回答がありません")),
    ("always_tool", Limits(max_turns=None, timeout_s=0),
     ("wall clock 0.00 s reached timeout_s=0",
      "実経過時間が 0.00 秒になり、timeout_s=0 に達しました")),
]




def said(pair: tuple[str, str], lang: str) -> str:
    return pair[lang == "ja"]


@pytest.mark.parametrize("history, stated", BROKEN)
def test_each_violation_of_the_pairing_invariant_is_one_sentence(lang, history, stated):
    assert [str(v) for v in violations(history)] == [said(s, lang) for s in stated]


def test_the_message_list_shows_the_violation_in_the_language_spoken(lang):
    history, stated = BROKEN[4]
    detail = said(stated[0], lang).split("：" if lang == "ja" else ": ", 1)[1]
    assert repr(MessageList(history)).splitlines()[-1].endswith(detail)


@pytest.mark.parametrize("scenario, limits, detail", ENDINGS)
def test_the_loop_says_why_it_stopped(lang, scenario, limits, detail):
    # no time passes
    assert SCENARIOS[scenario].run(limits=limits, clock=lambda: 0.0).detail == said(detail, lang)


def test_the_explorer_ends_on_the_reason_and_titles_its_scenarios(lang):
    e = Explorer("always_tool", max_turns=2)
    assert e.frames[-1].step == "error_max_turns: " + said(ENDINGS[1][2], lang)
    assert e.scenario.options[0] == (said(("aurora_run: Multi-step search: Aurora Run",
                                           "aurora_run: 複数段階の検索：Aurora Run"), lang),
                                     "aurora_run")


def shape(messages: list[dict]) -> list:
    """A conversation without its words: roles, block types, tool names and inputs, the ids that
    pair them."""
    return [(m["role"],
             [(b["type"], b.get("name"), b.get("input"), b.get("id") or b.get("tool_use_id"))
                         for b in m["content"]]) for m in messages]


def words(messages: list[dict]) -> str:
    return " ".join(
        b.get("text", "") for m in messages for b in m["content"] if b["type"] == "text"
    )


@pytest.mark.parametrize("scenario", ["gated_write", "unknown_tool", "aurora_run", "parallel_reads",
                                      "conflicting_edits", "large_result"])
def test_what_the_model_is_sent_speaks_the_edition_s_language_and_only_the_words_differ(
    scenario, monkeypatch):
    monkeypatch.setenv("COURSE_LANG", "en")
    english = SCENARIOS[scenario].run()
    monkeypatch.setenv("COURSE_LANG", "ja")
    japanese = SCENARIOS[scenario].run()
    assert shape(japanese.messages) == shape(english.messages)
    assert JAPANESE.search(words(japanese.messages)) and not JAPANESE.search(
        words(english.messages)
    )
    said = [(b_en["text"], b_ja["text"]) for m_en,
            m_ja in zip(english.messages, japanese.messages, strict=True)
            for b_en,
            b_ja in zip(m_en["content"], m_ja["content"], strict=True) if b_en["type"] == "text"]
    # every sentence, each reply
    assert [ja for en, ja in said if WORDS.search(en) and not JAPANESE.search(ja)] == []
    assert (japanese.subtype, japanese.calls, japanese.turns) == (
        english.subtype,
        english.calls,
        english.turns,
    )


def test_the_facts_stay_the_answer_1974_the_distractor_1951_paris(monkeypatch):
    for lang in ("en", "ja"):
        monkeypatch.setenv("COURSE_LANG", lang)
        aurora = SCENARIOS["aurora_run"].run()
        assert aurora.text == "1974" and "1951" in words(aurora.messages) and aurora.calls == 3
        assert SCENARIOS["one_shot"].run().text == "Paris"
