"""docs/GRADING.md's table of rules is the registry's: every rule of every exercise, its points and
its cases."""
from pathlib import Path

from course.grading.judging.oracle import rules_table
from course.grading.judging.registry import shipped

DOC = Path(__file__).resolve().parents[2] / "docs" / "GRADING.md"
START, END = "<!-- rules table -->\n", "\n<!-- end of rules table -->"


def documented() -> str:
    text = DOC.read_text()
    return text[text.index(START) + len(START):text.index(END)]


def test_the_documented_rules_are_the_checks():
    table = rules_table(list(shipped().exercises.values()))
    assert documented() == table, (
        "docs/GRADING.md's rules table is stale; rewrite it with:\n  python -c \"from "
        "tests.grading.test_grading_doc import write; write()\"")


def write() -> None:
    """Rewrite the table in docs/GRADING.md from the registry."""
    text = DOC.read_text()
    table = rules_table(list(shipped().exercises.values()))
    DOC.write_text(text[:text.index(START) + len(START)] + table + text[text.index(END):])
