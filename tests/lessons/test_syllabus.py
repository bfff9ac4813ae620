"""docs/SYLLABUS.md maps every item of the material to a lesson section and a graded exercise."""
import functools
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
SYLLABUS = ROOT / "docs" / "SYLLABUS.md"

# Every item of the seeds, by the ids the syllabus uses.
REQUIRED = [
    # 000: definitions, remarks, results, examples, section 8, code of section 9, exercises
    "def-2.1", "def-2.2", "def-2.3", "def-2.4", "def-3.1", "def-3.3", "def-5.1", "def-6.1",
    "def-7.1", "rem-3.2", "rem-4.2",
    "prop-3.4", "prop-3.5", "thm-4.1", "prop-5.2", "prop-5.4", "prop-6.2", "prop-7.2",
    "ex-4.3", "ex-5.3", "ex-6.3", "patterns-7",
    "sdk-2-tool-categories", "sdk-6-concurrency", "ext-pause-p1",
    "sdk-8-phases", "sdk-8-interrupts", "sdk-8-sessions", "sdk-8-checkpoints", "sdk-8-messages",
    "code-9.1", "code-9.2", "code-9.3",
    "exer-10.1", "exer-10.2", "exer-10.3", "exer-10.4",
    # the seven stop reasons
    "stop-end_turn", "stop-tool_use", "stop-max_tokens", "stop-stop_sequence", "stop-pause_turn",
    "stop-refusal", "stop-model_context_window_exceeded",
    # 002: the five termination guards; 003: the three loops
    "guard-iteration-cap", "guard-wall-clock", "guard-token-budget", "guard-repeated-state",
    "guard-human-escalation", "loop-inner", "loop-goal", "loop-outer",
    # 001: the runs, boundary cases and common mistakes
    "s001-aurora", "s001-one-shot", "s001-max-turns-2", "s001-n-plus-1", "s001-resend",
    "s001-no-result", "s001-invalid-tool", "s001-other-stops", "s001-left-out",
    "pit-001-text-final", "pit-001-task-logic", "pit-001-stateless", "pit-001-order",
    "pit-001-parallel", "pit-001-no-cap", "s001-cap-counts-calls", "s001-server-side",
    # 002: the study guide's topics and its five traps
    "s002-switch", "s002-cycle", "s002-single-turn", "s002-tool-result", "s002-structured-errors",
    "s002-retry-skip-abort", "s002-pressures", "s002-trim", "s002-clear", "s002-compaction",
    "s002-subagents", "s002-parallel", "s002-entry-points", "s002-observability", "s002-hooks",
    "trap-002-end-turn", "trap-002-max-tokens", "trap-002-tool-use-id", "trap-002-no-cap",
    "trap-002-process", "s002-analogies", "s002-exam", "s002-scenarios",
    # 003: measurements and pitfalls
    "m003-cart-runs", "m003-eisdir", "m003-per-lap", "m003-num-turns", "m003-max-turns-exit",
    "m003-budget",
    "m003-12x12", "m003-workflow-cost", "m003-three-loops", "m003-goal-cost", "m003-goal-stall",
    "m003-wording", "m003-duplicates", "m003-defaults",
    "pit-003-exit", "pit-003-cap-after-work", "pit-003-budget-after", "pit-003-killed",
    "pit-003-turns",
    "pit-003-evaluator", "pit-003-ralph", "pit-003-loop-expiry", "pit-003-idempotency",
    "pit-003-vercel", "m003-hands-on", "pit-003-goal-no-cap", "m003-own-split",
    # what the current model generation changes for the loop (FACTS.md)
    "api-thinking", "api-effort",
]
# the names lesson 00 gives the four texts, and FACTS.md
SOURCES = {"Model", "Primer", "Guide", "Blog", "FACTS"}
NO_EXERCISE = "—"


# the heading of the mapping table; the tables above it explain
ITEMS = "## Every item of the material"


def rows(text: str) -> list[dict]:
    """The mapping table's rows as dicts (pipes inside a cell are written \\|)."""
    out = []
    for line in text.split(ITEMS, 1)[-1].splitlines():
        if not line.startswith("| ") or line.startswith("| id ") or line.startswith("|---"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        assert len(cells) == 6, f"a syllabus row needs 6 cells: {line}"
        out.append(dict(zip(("id", "item", "source", "notebook", "section", "exercise"), cells,
                            strict=True)))
    return out


@functools.cache
def headings(path: Path) -> set[str]:
    """Markdown headings of a notebook, outside fenced code."""
    found = set()
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type != "markdown":
            continue
        fenced = False
        for line in cell.source.splitlines():
            if line.lstrip("# ").startswith("```"):
                fenced = not fenced
            elif not fenced and line.startswith("#"):
                found.add(line.lstrip("# ").strip().replace("\\$", "$"))  # \$: a dollar, not math
    return found


@functools.cache
def grade_ids(path: Path) -> set[str]:
    return {c.metadata["nbgrader"]["grade_id"] for c in nbformat.read(path, as_version=4).cells
            if "grade_id" in c.metadata.get("nbgrader", {})}


ROWS = rows(SYLLABUS.read_text(encoding="utf-8"))


def test_every_item_of_the_material_is_mapped_once():
    ids = [r["id"] for r in ROWS]
    assert sorted(i for i in set(ids) if ids.count(i) > 1) == []
    assert [i for i in REQUIRED if i not in ids] == []


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_the_section_exists_in_the_lesson(row):
    notebook = ROOT / "notebooks" / f"{row['notebook']}.ipynb"
    assert notebook.exists(), f"{row['id']}: no lesson {notebook.name}"
    assert row["section"] in headings(notebook), (f"{row['id']}: no heading {row['section']!r} in "
                                                  f"{notebook.name}")


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_the_exercise_exists_in_the_solutions(row):
    if row["exercise"] == NO_EXERCISE:
        return
    known = set().union(*(grade_ids(p) for p in sorted((ROOT / "solutions").glob("*.ipynb"))))
    missing = [g.strip() for g in row["exercise"].split(",") if g.strip() not in known]
    assert missing == [], f"{row['id']}: grade_id(s) {missing} not in solutions/"


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_the_source_is_named_as_lesson_00_names_it(row):
    named = {part.strip().split(" ")[0] for part in row["source"].split(",")}
    assert named <= SOURCES, f"{row['id']}: source {row['source']!r}; use {sorted(SOURCES)}"


def test_every_lesson_after_the_first_teaches_some_item():
    from course.lessons import LESSONS

    taught = {r["notebook"] for r in ROWS}
    assert [stem for stem, _ in LESSONS[1:] if stem not in taught] == []


def test_the_parsers_read_what_they_should():
    assert rows("| a \\| b | i | s | n | h | e |")[0]["id"] == "a | b"
    assert rows("| name | file |\n" + ITEMS + "\n| x | i | s | n | h | e |") == [
        {"id": "x", "item": "i", "source": "s", "notebook": "n", "section": "h", "exercise": "e"}]
    assert (
        rows("| id | item | source | notebook | section | exercise |\n|---|---|---|---|---|---|")
        == []
    )
