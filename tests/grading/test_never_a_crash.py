"""Never a crash: whatever JSON a student's function returns or sends, every check gives a grade and
a reason that compares it (never "the result could not be checked")."""
from __future__ import annotations

import pytest

from course.grading.judging import checks, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise

REGISTRY = registry.shipped()


def nested(depth: int) -> list:
    """[[[...]]]: a list `depth` levels deep, near what JSON carries at all."""
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


VALUES = {"a schema with a property named type": {"type": "object",
                                                  "properties": {"type": {"type": "string"}}},
          "a type that is a list": [{"type": ["text"], "text": "x"}],
          "an int too large for a float": 10 ** 400,
          "a message with odd content": [{"role": "user", "content": 7},
                                         {"role": 5, "content": {"type": {}}}],
          "a list 950 levels deep": nested(950)}


@pytest.mark.parametrize("exercise", [e for e in checks.EXERCISES if not e.call_timeout],
                         ids=lambda e: e.grade_id)
def test_any_json_value_returned_gets_a_grade_and_a_reason(exercise):
    for name, value in VALUES.items():
        marks = run_exercise(exercise, NotebookContext(lambda *args, _value=value, **kwargs: _value,
                                                       REGISTRY))
        unread = [m.reason for m in marks if "could not be checked" in m.reason]
        assert unread == [], f"{name}: {unread[0]}"
        assert all(m.passed or m.reason for m in marks)


def grep_tool_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    """Lesson 03's loop offering one more tool, whose schema has a property named `type` (as Claude
    Code's Grep)."""
    grep = {"name": "grep", "description": "Search files.", "input_schema": {
        "type": "object",
        "properties": {"pattern": {"type": "string"}, "type": {"type": "string"}}}}
    messages = [{"role": "user", "content": prompt}]
    response = client.messages.create(model=model, max_tokens=max_tokens, tools=[*tools, grep],
                                      messages=messages)
    return "".join(b.text for b in response.content if b.type == "text"), messages


def test_a_request_whose_tool_schema_has_a_property_named_type_is_compared():
    marks = run_exercise(REGISTRY.exercise("agent_loop"), NotebookContext(grep_tool_loop, REGISTRY))
    sent = next(m for m in marks
                if m.name.endswith("every request sends the model, the tools and the max_tokens "
                                                    "given"))
    assert "request 1, tools" in sent.reason, sent.reason
