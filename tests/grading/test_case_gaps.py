"""Cases that reach the sentences the old ones never did: each wrong version here got full marks on
the old cases (the issue's probes) and now fails the rule whose sentence it breaks."""
from __future__ import annotations

from unittest import mock

import pytest
from variants import variant  # tests/grading/, on sys.path as pytest imports this file

from course.grading.judging import registry
from course.grading.judging.notebook_context import CALL_TIMEOUT, NotebookContext
from course.grading.marks.mark import run_exercise

REGISTRY = registry.shipped()

# the last text block only
LAST_TEXT = 'next(b.text for b in reversed(response.content) if b.type == "text")'
# every text block, as the references write it (on two lines, at the indentation of `return` and
# `text =`)
ALL_TEXT = ('"".join(block.text for block in response.content\n                           if '
            'block.type == "text")')
WRONG = {  # a probe: (notebook, function, its edits, the start of a rule it must fail)
    "P3 blind in a message that answers a call (a duplicate or an extra result)": (
        "01_messages_and_blocks", "first_violation",
        [('if any(b["type"] == "tool_result"\n               for b in blocks(m)[answered.get(i, '
          '0):])',
          # in a message that answers, results right after the answers pass
          'rest = blocks(m)[answered.get(i, 0):]\n'
          '        rest = rest[next((k for k, b in enumerate(rest) if b["type"] != "tool_result"), '
          'len(rest)):] if i in answered else rest\n'
          '        if any(b["type"] == "tool_result" for b in rest)')], "P3:"),
    "agent_loop answering with the last text block": (
        "03_the_first_loop", "agent_loop",
        [('answer = "".join(block.text for block in response.content\n'
          '                             if block.type == "text")',
          f"answer = {LAST_TEXT}")], "end_turn: the answer"),
    "agent_loop answering a paused turn with its text": (
        "03_the_first_loop", "agent_loop",
        [('if response.stop_reason == "end_turn":',
          'if response.stop_reason in ("end_turn", "pause_turn"):')],
        "pause_turn: the reply is appended"),
    "agent_loop continuing a paused turn with a user message": (
        "03_the_first_loop", "agent_loop",
        [("messages, turns = messages + [reply], turns + 1",
          'messages, turns = messages + [reply, {"role": "user", "content": "Continue."}], turns + '
          '1')],
        "pause_turn: the reply is appended"),
    "agent_loop continuing a paused turn without counting it": (
        "03_the_first_loop", "agent_loop", [("messages, turns = messages + [reply], turns + 1",
                                             "messages = messages + [reply]")],
        "pause_turn: the reply is appended"),
    "finish_turn answering with the last text block": (
        "06_other_stop_reasons", "finish_turn",
        [(f"return {ALL_TEXT}",
          f"return {LAST_TEXT}")], "the text of the end_turn response"),
    "guarded_loop answering with the last text block": (
        "09_guards_and_observability", "guarded_loop",
        [(f"text = {ALL_TEXT}",
          f"text = {LAST_TEXT}")], "as lesson 03"),
    "budget_loop that ends only on end_turn (a refusal runs on)": (
        "07_context_growth_and_budgets", "budget_loop",
        [('if response.stop_reason != "tool_use":', 'if response.stop_reason == "end_turn":')],
        "a response without tool use ends the run as success"),
    "budget_loop pricing every model as the default one": (
        "07_context_growth_and_budgets", "budget_loop",
        [("cost_usd(model, response.usage)", 'cost_usd("claude-haiku-5-5", response.usage)')],
        "every response's cost is added"),
    "run_parallel answering a failure with no content": (
        "08_parallel_tools", "run_parallel",
        [('"content": f"Error: {error}", "is_error": True', '"is_error": True')], "a failing call"),
    "turn_log continuing a paused turn (lesson 06's loop, not lesson 03's)": (
        "09_guards_and_observability", "turn_log",
        [("        log.append(record)\n", "        log.append(record)\n"
          "        if response.stop_reason == \"pause_turn\":\n"
          "            messages = messages + [{\"role\": \"assistant\", \"content\": "
          "response.content}]\n"
          "            continue\n")], "the loop of lesson 03"),
    "limited_run giving the SDK a tiny budget whatever budget it is given": (
        "14_the_agent_sdk", "limited_run",
        [("max_budget_usd=max_budget_usd)", "max_budget_usd=max_budget_usd and 0.000001)")],
        "max_budget_usd stops the run"),
    "send_notices sending in alphabetical order": (
        "12_three_loops", "send_notices",
        [("for to in recipients:", "for to in sorted(recipients):")],
        "one send_email per recipient, in order"),
    "summarize_then_translate asking for German": (
        "11_workflows_versus_agents", "summarize_then_translate",
        [("Translate this into French.", "Translate this into German.")],
        "the second call asks for a French"),
    "summarize_then_translate with its two instructions swapped": (
        "11_workflows_versus_agents", "summarize_then_translate",
        [('node("Summarise this text in one sentence.", text)',
          'node("Translate this into French.", text)'),
         ('node("Translate this into French.", summary)',
          'node("Summarise this text in one sentence.", summary)')],
        "the second call asks for a French"),
}


def harness(probe: str) -> bool:
    """The probe's exercise starts the Claude Code CLI (slow)."""
    return (
        next(e for e in REGISTRY.exercises.values() if e.function == WRONG[probe][1]).call_timeout
        > 0
    )


@pytest.mark.parametrize("probe", [pytest.param(p, marks=pytest.mark.slow) if harness(p) else p
                                   for p in WRONG])
def test_a_wrong_version_that_had_full_marks_fails_the_rule_it_breaks(probe):
    notebook, name, edits, rule = WRONG[probe]
    fn = variant(f"solutions/{notebook}.ipynb", name, *edits)
    exercise = next(e for e in REGISTRY.exercises.values() if e.function == name)
    context = NotebookContext(fn, REGISTRY, max(CALL_TIMEOUT, exercise.call_timeout))
    # marks only: no known mistake is run for a hint (those of lesson 14 start the Claude Code CLI)
    with mock.patch("course.grading.judging.mistakes.hint", return_value=""):
        failed = [m.name.split(": ", 1)[1] for m in run_exercise(exercise, context) if not m.passed]
    assert any(f.startswith(rule) for f in failed), failed
