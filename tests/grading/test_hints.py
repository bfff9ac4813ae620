"""A hint is a proof: wrong versions that are not a known mistake, but fail like one on some case,
get no hint (the issue's probes, each once told a cause it did not have). A hint is named only when
the student's function does what the mistake does on every case of the exercise where either differs
from the reference."""
from __future__ import annotations

import contextlib
import io
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from course.grading.judging import reference, registry
from course.grading.judging.notebook_context import NotebookContext
from course.grading.marks.mark import run_exercise

REGISTRY = registry.shipped()


def hints(grade_id: str, fn) -> set[str]:
    """The hints a function's failed checks are shown (it must fail some)."""
    marks = run_exercise(REGISTRY.exercise(grade_id), NotebookContext(fn, REGISTRY))
    assert any(not m.passed for m in marks), f"the wrong {grade_id} got full marks"
    return {m.hint for m in marks if not m.passed} - {""}


def solution(notebook: str, name: str):
    return reference.function(f"solutions/{notebook}.ipynb", name)


def first_violation_printing(messages):
    with contextlib.redirect_stdout(io.StringIO()):
        found = solution("01_messages_and_blocks", "first_violation")(messages)
    print(found)  # the mistake: printed, not returned


def first_violation_swallowing(messages):
    """Reads every content as a list of blocks, and takes what it cannot read (a string content) for
    a valid list."""
    try:
        if not messages:
            return ("P1", 0)
        for m in messages:
            [b["type"] for b in m["content"]]  # a string's characters are no blocks: TypeError
        return solution("01_messages_and_blocks", "first_violation")(messages)
    except Exception:  # the mistake: swallowed
        return None


def first_violation_of_nonempty(messages):
    return solution("01_messages_and_blocks", "first_violation")(messages) if messages else None


def loop_with_cap(cap):
    """Lesson 03's loop whose cap is `cap(max_turns)`."""
    def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
        messages = [{"role": "user", "content": prompt}]
        turns = 0
        while True:
            response = client.messages.create(model=model, max_tokens=max_tokens, tools=tools,
                                              messages=messages)
            reply = {"role": "assistant",
                     "content": [b.model_dump(exclude_none=True) for b in response.content]}
            if response.stop_reason == "end_turn":
                return "".join(b.text for b in response.content if b.type == "text"), messages + [
                    reply
                ]
            if response.stop_reason != "tool_use" or turns == cap(max_turns):
                return None, messages
            results = []
            for b in response.content:
                if b.type == "tool_use":
                    try:
                        results.append({"type": "tool_result", "tool_use_id": b.id,
                                        "content": run_tool(b.name, b.input)})
                    except Exception as error:
                        results.append({"type": "tool_result", "tool_use_id": b.id,
                                        "content": f"Error: {error}", "is_error": True})
            messages = messages + [reply, {"role": "user", "content": results}]
            turns += 1
    return agent_loop


def repeated_call_with(threshold):
    """Lesson 09's repeated_call whose streak must reach `threshold(max_repeats)`."""
    def repeated_call(calls, max_repeats=3):
        streak = 0
        for i, (name, input) in enumerate(calls):
            same = i > 0 and calls[i - 1][0] == name and calls[i - 1][1] == input
            streak = streak + 1 if same else 1
            if streak >= threshold(max_repeats):
                return i
        return None
    return repeated_call


def run_parallel_pool_of_two(tool_uses, run_tool):
    def answer(use):
        try:
            return {"type": "tool_result", "tool_use_id": use["id"],
                    "content": run_tool(use["name"], use["input"])}
        except Exception as error:
            return {"type": "tool_result", "tool_use_id": use["id"], "content": f"Error: {error}",
                    "is_error": True}

    # the mistake: three calls do not all run at once
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(answer, tool_uses))


def choose_backend_swapped(env):
    asked = env.get("COURSE_LIVE") == "1"
    has_key = bool(env.get("ANTHROPIC_API_KEY"))
    return "local" if asked and has_key else "live"  # the mistake: the two answers swapped


def decide_naming_the_tool(tool_name, tool_input, deny):
    from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

    matches = solution("14_the_agent_sdk", "rule_matches")
    for rule in deny:
        if matches(rule, tool_name, tool_input):
            # the tool, not the rule
            return PermissionResultDeny(message=f"Permission denied by rule {tool_name}")
    return PermissionResultAllow()


# the probes: a wrong version, and the one hint it may be shown (none: no known mistake is
# it)
WRONG = {
    "first_violation printing": ("first_violation", first_violation_printing, set()),
    "first_violation swallowing an exception": ("first_violation", first_violation_swallowing,
                                                set()),
    "first_violation of a non-empty list only": ("first_violation", first_violation_of_nonempty,
                                                 set()),
    "agent_loop, cap one too high": ("agent_loop", loop_with_cap(lambda t: t + 1), set()),
    "agent_loop, cap one too low": ("agent_loop", loop_with_cap(lambda t: t - 1), set()),
    "agent_loop, cap fixed at 3": ("agent_loop", loop_with_cap(lambda t: 3), set()),
    "repeated_call, one repeat too many": ("repeated_call", repeated_call_with(lambda n: n + 1),
                                           set()),
    "repeated_call, one repeat too few": ("repeated_call", repeated_call_with(lambda n: n - 1),
                                          set()),
    "repeated_call ignoring max_repeats": ("repeated_call", repeated_call_with(lambda n: 3), set()),
    "run_parallel with a pool of two": ("run_parallel", run_parallel_pool_of_two, set()),
    "choose_backend swapping its answers": ("choose_backend", choose_backend_swapped, set()),
    "decide naming the tool": ("decide", decide_naming_the_tool, set()),
}


@pytest.mark.parametrize("probe", WRONG)
def test_a_wrong_version_that_is_no_known_mistake_is_told_no_cause(probe):
    grade_id, fn, allowed = WRONG[probe]
    assert hints(grade_id, fn) <= allowed


def test_max_calls_that_forgets_the_first_call_is_told_so_not_to_round_down():
    from course.grading.judging.checks.l07_context_growth_and_budgets import NO_PLUS_ONE
    from course.i18n import tr

    def max_calls(window, s, c):
        return max((window - s) // c, 0)

    assert hints("max_calls", max_calls) == {tr(NO_PLUS_ONE)}


def counted(fn, calls: list):
    def wrapper(*args, **kwargs):
        calls.append(args)
        return fn(*args, **kwargs)
    return wrapper


def test_the_students_function_runs_once_per_case_whichever_checks_and_hints_ask():
    """count_run's five rules share their cases: a function right on the counts but changing the
    history in place passes four rules on every case and fails the fifth, and runs once per case (it
    ran 57 times for 14 cases)."""
    def count_run(messages):
        counts = solution("04_termination", "count_run")(list(messages))
        messages.append({"role": "user", "content": "counted"})
        return counts

    calls: list = []
    exercise = REGISTRY.exercise("count_run")
    marks = run_exercise(exercise, NotebookContext(counted(count_run, calls), REGISTRY))
    assert [m.passed for m in marks] == [True] * 4 + [False]
    assert len(calls) == len(exercise.rules[0].all_cases())


def test_a_known_mistakes_outcome_on_a_case_is_computed_once_and_dropped_at_its_first_disagreement(
    monkeypatch):
    from course.grading.judging import mistakes, oracle

    ran: list = []
    real = oracle.trusted_call
    monkeypatch.setattr(mistakes, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call",  # saved_as is passed by name
                        lambda fn, case, *t,
                        **k: ran.append((fn, id(case))) or real(fn, case, *t, **k))
    for _ in range(2):
        hints("agent_loop", loop_with_cap(lambda t: t + 1))
    known = {m.fn for m in mistakes.known()["agent_loop"]}
    by_mistakes = [r for r in ran if r[0] in known]
    # once per mistake and case, across two gradings
    assert by_mistakes and len(by_mistakes) == len(set(by_mistakes))
    cases = sum(len(r.all_cases()) for r in REGISTRY.exercise("agent_loop").rules)
    assert len(by_mistakes) < len(known) * cases / 2  # most mistakes are dropped early


def test_no_hint_and_no_crash_when_the_reference_timed_out_on_another_case(monkeypatch):
    """Found by mypy: a case whose reference outcome is None (it timed out twice) crashed the hint's
    proof, and the check said 'the result could not be checked'. The failing case is still reported;
    the hint is withheld."""
    from course.grading.judging import oracle

    real = oracle.reference_outcome
    monkeypatch.setattr(oracle, "reference_outcome",
                        lambda exercise, rule,
                        i: None if i == len(rule.all_cases()) - 1 else real(exercise, rule, i))

    def max_calls(window, s, c):  # the mistake NO_PLUS_ONE names, when every case can be judged
        return max((window - s) // c, 0)

    marks = run_exercise(REGISTRY.exercise("max_calls"), NotebookContext(max_calls, REGISTRY))
    failed = [m for m in marks if not m.passed]
    assert failed and all(m.reason.startswith("with ") and m.hint == "" for m in failed), failed


# seconds a known mistake's call may take in the tests below, to keep their timeouts short
LOADED = 0.2


def loaded(monkeypatch, lasting: bool, only: tuple | None = None) -> list:
    """Simulate a loaded machine: l07_window_counts_turns's calls time out, every one (`lasting`) or
    the first on each case, on every case or `only` on the one with those arguments; the other calls
    run. The mistakes' outcomes start afresh, and the student's context is given the same limit as
    the mistakes' calls (as on exercise 14's harness, where the two are equal). The calls made, as
    (fn, case)."""
    from course.grading.judging import mistakes, oracle

    mistake = next(m for m in mistakes.known()["max_calls"] if m.name == "l07_window_counts_turns")
    real, calls = oracle.trusted_call, []

    def call(fn, case, timeout=oracle.REFERENCE_TIMEOUT, saved_as=None):
        calls.append((fn, case))
        if (
            fn is mistake.fn
            and (lasting or calls.count((fn, case)) == 1)
            and only in (None, case.args)
        ):
            return oracle.Outcome(
                value=None,
                error=oracle.tr(
                    "timed out after {seconds:g} s (an endless loop? no turn cap?)"
                ).format(seconds=timeout),
            )
        return real(fn, case, timeout, saved_as)

    monkeypatch.setattr(mistakes, "_outcomes", {})
    monkeypatch.setattr(mistakes, "MISTAKE_TIMEOUT", LOADED)
    monkeypatch.setattr(oracle, "trusted_call", call)
    return calls


def forgets_the_first_call(endless_at: tuple | None = None):
    """l07_window_counts_turns's max_calls, which never returns on the arguments `endless_at`."""
    def max_calls(window, s, c):
        while (window, s, c) == endless_at:
            time.sleep(0.01)
        return max((window - s) // c, 0)
    return max_calls


def hints_within(grade_id: str, fn, seconds: float) -> set[str]:
    marks = run_exercise(REGISTRY.exercise(grade_id), NotebookContext(fn, REGISTRY, seconds))
    return {m.hint for m in marks if not m.passed} - {""}


def test_a_known_mistakes_timeout_on_a_loaded_machine_never_matches_a_students_timeout(monkeypatch):
    """A known mistake's call that timed out is not what it does: matched to a student's endless
    loop on that case, it named the mistake (found by simulating load). It is run again with twice
    the time; timed out twice, the proof names nothing."""
    last = REGISTRY.exercise("max_calls").rules[0].all_cases()[-1].args
    loaded(monkeypatch, lasting=True, only=last)
    assert hints_within("max_calls", forgets_the_first_call(endless_at=last), LOADED) == set()


def test_a_known_mistakes_timeout_on_a_loaded_machine_is_run_again_with_more_time(monkeypatch):
    """Load that passes: the mistake's second call, with twice the time, is its outcome; the mistake
    is named, and a student's endless loop on a case where the mistake returns is not."""
    from course.grading.judging.checks.l07_context_growth_and_budgets import NO_PLUS_ONE
    from course.i18n import tr

    calls = loaded(monkeypatch, lasting=False)
    assert hints_within("max_calls", forgets_the_first_call(), LOADED) == {tr(NO_PLUS_ONE)}
    assert len({c for c in calls if calls.count(c) == 2}) > 1  # run again, on several cases
    last = REGISTRY.exercise("max_calls").rules[0].all_cases()[-1].args
    assert hints_within("max_calls", forgets_the_first_call(endless_at=last), LOADED) == set()



def test_whether_a_mistake_is_wrong_is_remembered_per_pair_of_outcomes_not_per_case():
    """mistakes.wrong() remembers a verdict for the two outcomes it compared: against another
    reference outcome on the same case (a test's stand-in reference, a new run) it judges again."""
    from course.grading.judging import mistakes, oracle

    exercise = registry.shipped().exercise("max_calls")
    found = next((m, rule, i, out) for m in mistakes.known()["max_calls"] for rule in exercise.rules
                 for i in range(len(rule.all_cases()))
                 if (out := mistakes.outcome(m, rule, i)) is not None
                 and mistakes.wrong(rule, i, out, oracle.reference_outcome(exercise, rule, i)))
    _, rule, i, out = found
    assert not mistakes.wrong(rule, i, out, out)  # the same case, the mistake as its own reference
