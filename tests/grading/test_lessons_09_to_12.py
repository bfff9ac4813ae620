"""Lessons 09-12's rules accept the answers their texts allow and refuse the ones they do not:
prompts in the student's own words, a clock read another way, a log that never calls the model; the
grader's clock (CLOCK) is the same in check() and in the worker."""
from __future__ import annotations

import time
from pathlib import Path

from course.contract.exercise import CLOCK
from course.grading.judging import registry
from course.grading.judging.cases import ANSWERS, ASKS, loop_case
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = registry.shipped()


def grade(grade_id: str, fn) -> list:
    return run_exercise(REGISTRY.exercise(grade_id), NotebookContext(fn, REGISTRY))


def failed(marks) -> list:
    return [(m.name, m.reason) for m in marks if not m.passed]


def own_words(client, model, text):
    """The chain with other prompts: instructions after the data, blocks, a system prompt."""
    first = client.messages.create(model=model, max_tokens=300,
                                   messages=[{"role": "user", "content": [
        {"type": "text", "text": "Condense this into a single sentence:"},
        {"type": "text", "text": text}]}])
    summary = "".join(b.text for b in first.content if b.type == "text")
    second = client.messages.create(model=model, max_tokens=300, system="You translate.", messages=[
        {"role": "user", "content": f"{summary}\n\nTranslate into the French language."}])
    return "".join(b.text for b in second.content if b.type == "text")


def test_a_chain_in_its_own_words_gets_full_marks():
    assert failed(grade("summarize_then_translate", own_words)) == []


def deadline_as_a_time(client, model, tools, run_tool, prompt, *, max_turns=10, max_repeats=3,
                       timeout_s=None, clock=time.monotonic):
    """guarded_loop written another way: a deadline as a time, the repeats from a history, its own
    warning."""
    deadline = None if timeout_s is None else clock() + timeout_s
    messages, history, warned = [{"role": "user", "content": prompt}], [], None
    for turn in range(max_turns + 1):
        if deadline is not None and clock() >= deadline:
            return "error_timeout", None
        r = client.messages.create(model=model, max_tokens=2048, tools=tools, messages=messages)
        if r.stop_reason != "tool_use":
            text = "".join(b.text for b in r.content if b.type == "text")
            return (
                ("success", text)
                if r.stop_reason in ("end_turn", "stop_sequence")
                else (r.stop_reason, None)
            )
        uses = [b for b in r.content if b.type == "tool_use"]
        if warned == (uses[0].name, uses[0].input):
            return "error_repeated_call", None
        if deadline is not None and clock() >= deadline:
            return "error_timeout", None
        if turn == max_turns:
            return "error_max_turns", None
        warned, results = None, []
        for u in uses:
            history.append((u.name, u.input))
            run = len(history) - next((k for k in range(len(history) - 1, -1, -1)
                                       if history[k] != history[-1]), -1) - 1
            if run >= max_repeats:
                warned = history[-1]
                results.append({"type": "tool_result", "tool_use_id": u.id,
                                "content": "You repeat.", "is_error": True})
                continue
            try:
                results.append({"type": "tool_result", "tool_use_id": u.id,
                                "content": run_tool(u.name, u.input)})
            except Exception as e:
                results.append({"type": "tool_result", "tool_use_id": u.id, "content": repr(e),
                                "is_error": True})
        messages += [{"role": "assistant", "content": r.content},
                     {"role": "user", "content": results}]


def test_a_guarded_loop_written_another_way_gets_full_marks():
    assert failed(grade("guarded_loop", deadline_as_a_time)) == []


def test_a_turn_log_that_never_calls_the_model_gets_nothing():
    marks = grade("turn_log", lambda *args, **kwargs: None)
    assert sum(m.score for m in marks) == 0


def test_the_clock_moves_only_with_the_models_responses():
    def readings(client, model, tools, run_tool, prompt, *, clock):
        seen = [clock()]
        for _ in range(2):
            client.messages.create(model=model, max_tokens=100, tools=tools,
                                   messages=[{"role": "user", "content": "?"}])
            seen += [clock(), clock()]
        return seen

    case = loop_case((ASKS, ANSWERS), clock=CLOCK)
    out = NotebookContext(readings, REGISTRY).call(*case.args, scenario=case.scenario,
                                                   **case.kwargs)
    assert out.value == [0, 10, 10, 20, 20]


def test_on_the_wire_the_deadline_exactly_reached_is_judged_as_in_the_notebook(tmp_path):
    from course.grading.classroom.batch import grade_batch

    (report,) = grade_batch([ROOT / "solutions" / "09_guards_and_observability.ipynb"],
                            tmp_path / "out", log=lambda line: None)
    assert report["score"] == sum(e.points for e in REGISTRY.exercises.values()
                                  if e.notebook == "solutions/09_guards_and_observability.ipynb")
