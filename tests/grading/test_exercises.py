"""The graded exercises: every solution gets full marks; every wrong implementation in
course/grading/judging/mistakes/ (the known mistakes) loses marks, is named by its own hint and by
no other, and its reports speak Japanese with the same marks
(tests/i18n/test_late_lesson_reports_ja.py holds whole sentences in both languages).
Each known mistake is graded once per language, for every test here that reads its Marks: those of
exercise 14 start the Claude Code CLI."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

import nbformat
import pytest
from case_identity import objects  # tests/grading/, on sys.path as pytest imports this file

from course.editions.translation import JAPANESE  # a kana or kanji
from course.grading.judging import checks, mistakes, registry
from course.grading.judging.notebook_context import CALL_TIMEOUT, NotebookContext
from course.grading.marks.mark import Mark, run_exercise
from course.i18n import speaking, tr

# every exercise against its reference and known mistakes: not make check
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = registry.shipped()
MISTAKES = sorted((ROOT / "course" / "grading" / "judging" / "mistakes").glob("l[0-9]*.py"))


def load(path: Path) -> dict:
    """A mistake's file run: GRADE_ID, the function, MISTAKE (the hint that names it) and FAILS."""
    meta: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), meta)
    return meta


def grade(grade_id: str, fn) -> list[Mark]:
    """One Mark per check of the exercise, with the notebook's in-process Context (as check() gives
    it: longer calls for an exercise that starts the Claude Code CLI)."""
    exercise = REGISTRY.exercise(grade_id)
    return run_exercise(exercise,
                        NotebookContext(fn, REGISTRY, max(CALL_TIMEOUT, exercise.call_timeout)))


class AsTheKnownMistake(NotebookContext):
    """A known mistake graded as a student's function: each call is the mistake's own outcome on
    that case (mistakes.outcome: the same NotebookContext call, with a mistake's time limit), so the
    grade and the hint's proof share one run per case instead of making two (of the Claude Code CLI,
    for a harness exercise)."""

    def __init__(self, mistake: mistakes.Mistake, exercise):
        super().__init__(mistake.fn, REGISTRY, max(mistakes.MISTAKE_TIMEOUT, exercise.call_timeout))
        self.mistake, self.cases = mistake, {}
        for rule in exercise.rules:  # a case two rules share is the first one's
            for index, case in enumerate(rule.all_cases()):
                self.cases.setdefault(objects(case.args, case.kwargs, case.scenario), (rule, index))

    def call(self, *args, scenario=None, **kwargs):
        rule, index = self.cases[objects(args, kwargs, scenario)]
        found = mistakes.outcome(self.mistake, rule, index, self.timeout)
        assert found is not None, (f"{self.mistake.name} timed out twice on {rule.label(index)} (a "
                                   "loaded machine?)")
        return found


@functools.cache
def marks(path: Path, lang: str) -> tuple[dict, list[Mark]]:
    """(the mistake's file run, its Marks in `lang`), graded through AsTheKnownMistake."""
    meta = load(path)
    exercise = REGISTRY.exercise(meta["GRADE_ID"])
    mistake = next(m for m in mistakes.known()[exercise.grade_id] if m.name == path.stem)
    with speaking(lang):
        return meta, run_exercise(exercise, AsTheKnownMistake(mistake, exercise))


def notebooks() -> dict[str, dict]:
    """grade_id -> the namespace of its solution notebook, made by running every cell but the
    checks."""
    found = {}
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        namespace: dict = {}
        for cell in cells:
            if not cell.metadata.get("nbgrader", {}).get("grade"):
                exec(compile(cell.source, f"<{path.name}>", "exec"), namespace)
        for cell in cells:
            meta = cell.metadata.get("nbgrader", {})
            if meta.get("solution"):
                found[meta["grade_id"]] = namespace
    return found


SOLUTIONS = notebooks()
# grading it starts the Claude Code CLI (minutes): make check leaves it to make test
CLI = pytest.mark.slow
EXERCISES = [pytest.param(e, marks=[CLI] if e.call_timeout else [], id=e.grade_id)
             for e in checks.EXERCISES]
MISTAKE_FILES = [pytest.param(p, marks=[CLI] if REGISTRY.exercise(load(p)["GRADE_ID"]).call_timeout
                              else [], id=p.stem)
                 for p in MISTAKES]


def covering(paths: list[Path]) -> set[Path]:
    """Of a CLI exercise's known mistakes, the fewest (chosen greedily, by name on a tie) whose
    FAILS together name every rule any of them fails: the sentences whose whys a Japanese pass
    must read, each mistake costing its own runs of the Claude Code CLI."""
    fails = {p: set(load(p)["FAILS"]) for p in sorted(paths)}
    left, chosen = set().union(*fails.values()), set()
    while left:
        best = max(fails, key=lambda p: len(fails[p] & left))
        chosen.add(best)
        left -= fails[best]
    return chosen


def japanese_pass() -> list:
    """MISTAKE_FILES, but of each CLI exercise only covering()'s mistakes: every why of its rules is
    still read in Japanese, at a third of its CLI runs (lesson 14's Japanese pass was 93 s of
    test_exercises' 270 s in a quiet make test)."""
    kept = set()
    for grade_id in {load(p)["GRADE_ID"] for p in MISTAKES}:
        mine = [p for p in MISTAKES if load(p)["GRADE_ID"] == grade_id]
        kept |= covering(mine) if REGISTRY.exercise(grade_id).call_timeout else set(mine)
    return [param for param in MISTAKE_FILES if param.values[0] in kept]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_solution_gets_full_marks(exercise):
    assert exercise.grade_id in SOLUTIONS, f"no solution cell for {exercise.grade_id} in solutions/"
    results = grade(exercise.grade_id, SOLUTIONS[exercise.grade_id][exercise.function])
    assert [(r.name, r.reason) for r in results if not r.passed] == []


@pytest.mark.parametrize("path", MISTAKE_FILES)
def test_mistake_loses_marks_and_no_hint_names_another(path):
    meta, results = marks(path, "en")
    exercise = REGISTRY.exercise(meta["GRADE_ID"])
    assert sum(r.score for r in results) < exercise.points, f"{path.name} got full marks"
    hints = {r.hint for r in results if not r.passed and r.hint}
    assert hints <= {tr(meta["MISTAKE"])}, f"{path.name}: a hint names another mistake: {hints}"


@pytest.mark.parametrize("path", MISTAKE_FILES)
def test_mistake_fails_exactly_the_rules_its_file_lists(path):
    """One point per sentence: a known mistake fails the rules of the sentences it breaks (its
    file's FAILS, in the exercise's order), and no other rule."""
    meta, results = marks(path, "en")
    failed = [r.name.split(": ", 1)[1] for r in results if not r.passed]
    assert failed == list(meta["FAILS"]), f"{path.name} fails other rules than its FAILS lists"


@pytest.mark.parametrize("path", MISTAKE_FILES)
def test_every_known_mistake_is_named_by_its_own_hint(path):
    """Every known mistake's file names its mistake, and grading the file's function shows that
    hint: proven on every case of the exercise (mistakes.hint), so no other known mistake behaves
    the same."""
    meta, results = marks(path, "en")
    assert isinstance(meta.get("MISTAKE"), str) and meta["MISTAKE"], f"{path.name} names no mistake"
    assert tr(meta["MISTAKE"]) in {r.hint for r in results if not r.passed}, (f"{path.name} is not "
                                                                              "named by its hint")


@pytest.mark.parametrize("path", japanese_pass())
def test_every_why_and_hint_of_every_known_mistake_is_japanese_with_the_same_marks(path):
    english, japanese = ([m for m in marks(path, lang)[1] if not m.passed] for lang in ("en", "ja"))
    assert [(m.name.split(": ")[0], m.score) for m in japanese] == [
        (m.name.split(": ")[0], m.score) for m in english
    ]
    for en, ja in zip(english, japanese, strict=True):
        assert JAPANESE.search(ja.reason), f"{en.name}: the why is not Japanese: {ja.reason}"
        assert bool(ja.hint) == bool(en.hint) and (not ja.hint or JAPANESE.search(ja.hint)), \
            f"{en.name}: the hint {en.hint!r} is {ja.hint!r} in Japanese"


def test_every_exercise_has_a_notebook_cell_and_unique_id():
    ids = [e.grade_id for e in checks.EXERCISES]
    assert len(ids) == len(set(ids))
    assert set(ids) <= set(SOLUTIONS)


def stub(*args, **kwargs):
    raise NotImplementedError("the exercise's stub")


@pytest.mark.parametrize("exercise", checks.EXERCISES, ids=lambda e: e.grade_id)
def test_a_stub_fails_every_check_and_runs_no_known_mistake(exercise, monkeypatch):
    ran = []
    monkeypatch.setattr(mistakes, "outcome", lambda mistake, *rest: ran.append(mistake.name))
    results = grade(exercise.grade_id, stub)
    assert [r.name for r in results if r.passed] == []
    assert all(r.reason.startswith("not implemented yet") for r in results)
    assert ran == [], "a stub's hint is the stub's: no known mistake need run to name another"


def test_the_references_outcome_on_a_case_is_computed_once_per_language(monkeypatch):
    """A tool's error speaks the submission's language: a Japanese submission is never compared with
    an outcome computed for an English one, whichever the batch graded first."""
    from course.grading.judging import oracle
    from course.i18n import speaking

    exercise = REGISTRY.exercise("max_calls")
    computed, real = [], oracle.trusted_call
    monkeypatch.setattr(oracle, "_outcomes", {})
    monkeypatch.setattr(oracle, "trusted_call",
                        lambda fn, case, *timeout,
                        **saved: computed.append(case) or real(fn, case, *timeout, **saved))
    for lang in ("en", "ja", "en", "ja"):
        with speaking(lang):
            oracle.reference_outcome(exercise, exercise.rules[0], 0)
    assert len(computed) == 2


def test_on_the_wire_the_solution_gets_full_marks_and_a_mistake_is_named(tmp_path):
    from course.grading.classroom.batch import grade_batch

    solution = ROOT / "solutions" / "03_the_first_loop.ipynb"
    wrong = nbformat.read(solution, as_version=4)
    mistake = ROOT / "course" / "grading" / "judging" / "mistakes" / "l03_one_message_each.py"
    source = mistake.read_text()
    function = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef))
    for cell in wrong.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "agent_loop":
            # the student's cell: the function alone
            cell.source = ast.get_source_segment(source, function)
    nbformat.write(wrong, tmp_path / "wrong.ipynb")
    right, bad = grade_batch([solution, tmp_path / "wrong.ipynb"], tmp_path / "out",
                             log=lambda line: None)
    assert right["score"] == registry.shipped().exercise("agent_loop").points
    meta = load(mistake)
    failed = [t["output"] for t in bad["tests"] if t["status"] == "failed"]
    assert failed and any(tr(meta["MISTAKE"]) in output for output in failed)


def test_every_graded_function_has_at_least_two_wrong_versions():
    counts = {e.grade_id: 0 for e in checks.EXERCISES}
    for path in MISTAKES:
        counts[load(path)["GRADE_ID"]] += 1
    assert {g: n for g, n in counts.items() if n < 2} == {}


def test_the_colleagues_broken_loop_in_exercise_03_loses_marks_and_is_named_only_mistakes_it_makes():  # noqa: E501
    """colleague_loop (solutions/03) answers only the last tool_use, lets a tool's exception escape,
    has no turn cap and takes every stop_reason but tool_use for an answer: it fails the rules those
    four break. A hint is proven on every case of the exercise, and no single known mistake does all
    four, so it may be told none; a hint it is shown never names a mistake it does not make."""
    from course.grading.judging.checks import l03_the_first_loop as l03

    results = grade("agent_loop", SOLUTIONS["agent_loop"]["colleague_loop"])
    failed = {r.name.split(": ", 1)[1] for r in results if not r.passed}
    assert {tr(rule.name) for rule in registry.shipped().exercise("agent_loop").rules
            if rule.cases in (
        l03.parallel_cases, l03.raising_cases, l03.cap_cases, l03.cut_cases)} <= failed
    hints = {r.hint for r in results if not r.passed} - {""}
    assert hints <= {tr(h) for h in (l03.ONLY_ONE_RESULT, l03.TOOL_EXCEPTION, l03.NO_CAP,
                                               l03.STOP_NOT_TOOL_USE_IS_ANSWER)}


def ending_appended(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    """The other reading of the contract: at a None exit, the response that ended the loop is
    appended."""
    if max_turns < 0:
        raise ValueError(f"max_turns must be 0 or more, not {max_turns}")
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        r = client.messages.create(model=model, max_tokens=max_tokens, tools=tools,
                                   messages=messages)
        messages.append({"role": "assistant", "content": r.content})
        if r.stop_reason == "end_turn":
            return "".join(b.text for b in r.content if b.type == "text"), messages
        if r.stop_reason != "tool_use" or turn == max_turns:
            return None, messages  # cut, refused or capped: appended, and no answer
        results = []
        for b in r.content:
            if b.type == "tool_use":
                try:
                    results.append({"type": "tool_result", "tool_use_id": b.id,
                                    "content": run_tool(b.name, b.input)})
                except Exception as e:
                    results.append({"type": "tool_result", "tool_use_id": b.id, "content": str(e),
                                    "is_error": True})
        messages.append({"role": "user", "content": results})


def test_a_loop_that_appends_the_cut_refused_or_capped_response_gets_full_marks():
    results = grade("agent_loop", ending_appended)
    assert [(r.name, r.reason) for r in results if not r.passed] == []


def test_an_extra_message_at_every_none_exit_fails_only_the_sentence_about_what_a_none_exit_returns():  # noqa: E501
    """The accepted reading appends the ending response once; appending it twice breaks one
    sentence, what a run without an answer returns, and fails that rule alone (the rules of the cap,
    the cut, the refusal and the pause compare the calls, the tools and the answer, which it gets
    right)."""
    from course.grading.judging.checks import l03_the_first_loop as l03

    def appended_twice(*args, **kwargs):
        answer, messages = ending_appended(*args, **kwargs)
        return answer, messages + messages[-1:] if answer is None else messages

    failed = {r.name.split(": ", 1)[1]: r for r in grade("agent_loop", appended_twice)
              if not r.passed}
    assert set(failed) == {tr(rule.name) for rule in registry.shipped().exercise("agent_loop").rules
                           if rule.cases is l03.none_exit_cases}
    assert all("the returned messages at [1]" in r.reason and r.hint == "" for r in failed.values())
