"""A check report describes its cases in the report's language
(course.grading.judging.oracle.Rule.label), while the cases' inputs stay the English ones (a
budget's boundary depends on them): every case of every shipped rule, and the reports of known
mistakes of lessons 01, 04 and 10."""
from __future__ import annotations

import re

import pytest
from english_phrases import english_phrases
from test_late_lesson_reports_ja import marks, mistake

from course.grading.judging.oracle import inputs
from course.grading.judging.registry import shipped
from course.i18n import speaking

# an input shown as it is given (a prompt, a text): the case's own data
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
# the goal evaluator's words, what it answers
VERDICTS = re.compile(r"\b(not yet|achieved|impossible)\b")
RULES = [(e.grade_id, i, r) for e in shipped().exercises.values() for i, r in enumerate(e.rules)]


@pytest.mark.parametrize("grade_id, i, rule", RULES, ids=[f"{g}-{i}" for g, i, _ in RULES])
def test_every_case_is_described_in_japanese_and_keeps_its_english_inputs(grade_id, i, rule):
    english = [inputs(c) for c in rule.all_cases()]
    with speaking("ja"):
        described = [rule.label(k) for k in range(len(english))]
        assert [inputs(c) for c in rule.all_cases()] == english
    assert [
        p for d in described for p in english_phrases(VERDICTS.sub("", QUOTED.sub("", d)))
    ] == []


@pytest.mark.parametrize("grade_id, stem, japanese", [
    ("first_violation", "l01_no_p3",
     "first_violation([user 'q'（文字列）, assistant [text, tool_use t1], "
                                     "user [result t1, text, result t1]]) のとき"),
    ("count_run", "l04_tool_calls_as_turns", "count_run（例 4.3） のとき"),
    ("clear_old_results", "l10_clears_the_notes",
     "メモ、エラー、thinking、ブロックの content を含む履歴、keep=1 のとき"),
])
def test_a_failing_report_names_its_case_in_japanese(grade_id, stem, japanese, speak):
    speak("ja")
    reasons = [why for why, _ in marks(grade_id, mistake(stem, grade_id))]
    assert any(japanese in why for why in reasons), reasons


def test_the_apis_message_in_a_report_does_not_end_the_reports_sentence(lang):
    reasons = [why for why, _ in marks("agent_loop", mistake("l03_no_assistant", "agent_loop"))]
    rejected = [why for why in reasons if "400" in why]
    assert rejected and not [why for why in rejected if ".。" in why or ".;" in why], rejected
