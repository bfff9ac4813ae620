"""Lesson 04 reproduces the Primer's count: its `max_turns=2` loop made 2 calls, ran both searches
and returned None with every fact gathered, which neither the course's `max_turns=2` (3 calls, 1974)
nor `max_calls=2` (1 search) does."""
from pathlib import Path

from course.lessons import LOOP_TAG, loop_setup, tagged_source
from course.scenarios import get

LESSON_04 = Path(__file__).resolve().parents[2] / "notebooks" / "04_termination.ipynb"


def lesson_04(tag: str, name: str):
    namespace: dict = {}
    exec(compile(tagged_source(LESSON_04, tag), f"04:{tag}", "exec"), namespace)
    return namespace[name]


def run(loop, **options):
    """(answer, model calls, tool results in the history, the history's text) of a loop on Aurora
    Run."""
    aurora = get("aurora_run")
    api = aurora.api()
    answer, history = loop(*loop_setup(aurora, api=api), **options)
    results = [b["content"] for m in history[1:] if m["role"] == "user" for b in m["content"]]
    return answer, len(api.requests), len(results), " ".join(results)


def test_the_primers_max_turns_2_makes_2_calls_runs_both_searches_and_returns_none():
    answer, calls, searches, seen = run(lesson_04("primer-loop", "primer_loop"), max_turns=2)
    assert (answer, calls, searches) == (None, 2, 2)
    assert "1974" in seen  # every fact gathered, none read


def test_the_courses_caps_of_2_count_differently():
    loop = lesson_04(LOOP_TAG, "agent_loop")
    assert run(loop, max_turns=2)[:3] == ("1974", 3, 2)
    # a cap on calls that never runs the last call's tools
    assert run(loop, max_calls=2)[:3] == (None, 2, 1)
