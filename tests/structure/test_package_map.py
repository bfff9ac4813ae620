"""The package's map holds: one name per meaning, and imports that never run back up a layer."""
import ast
from collections import defaultdict
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2] / "course"

# what each part may import from the rest of `course`; the local API sits at the bottom, on the
# messages' blocks (a string content is one text block in one place). The messages may import
# course.i18n alone (their violations speak the course's language): a leaf that imports nothing else
# from the course. The contract (one call of a student's function: Call, its Outcome, the student's
# side) lies below both the views and grading, which share it: the views never import grading.
# Grading's rooms import down only: the marks, then the judging of an exercise (the oracle, check()
# in a notebook), then the classroom (the batch, its sandbox, its outputs).
LOWER = {"api", "messages", "i18n", "client", "tools", "scenarios", "agent_sdk", "pricing",
         "events", "gate", "loop"}
MAY_IMPORT = {
    # i18n is below both: the replay names where a run left its recording
    "api": {"messages", "i18n"},
    "messages": {"i18n"},
    "i18n": set(),
    "contract": LOWER,
    "viz": LOWER | {"contract", "context"},
    "grading/marks": LOWER | {"contract", "viz"},
    "grading/judging": LOWER | {"contract", "grading/marks"},
    "grading/classroom": LOWER | {"contract", "grading/marks", "grading/judging", "lessons",
                                  "editions"},
    "grading": {"grading/judging"},  # the package itself: check(), imported on first use
}
ROOMS = ("marks", "judging", "classroom")  # grading's rooms, each a part of its own


def modules() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text()) for p in sorted(COURSE.rglob("*.py"))}


def classes_by_name(trees: dict[Path, ast.Module]) -> dict[str, list[str]]:
    found = defaultdict(list)
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(str(path.relative_to(COURSE.parent)))
    return found


def part(path: Path) -> str:
    """The first component under course/: `api` for course/api/handler.py, `loop` for
    course/loop.py; in grading, the room: `grading/judging` for course/grading/judging/oracle.py."""
    return named(["course", *path.relative_to(COURSE).with_suffix("").parts])


def named(module: list[str]) -> str:
    """The part a module of `course` belongs to, from its dotted name's components."""
    if module[1] == "grading" and len(module) > 2 and module[2] in ROOMS:
        return f"grading/{module[2]}"
    return module[1]


def course_imports(path: Path, tree: ast.Module) -> set[str]:
    """The parts of `course` a module imports (absolute or relative), itself excluded."""
    package = path.relative_to(COURSE.parent).with_suffix("").parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1]
                target = [*base, *(node.module.split(".") if node.module else [])]
            else:
                target = (node.module or "").split(".")
            names = (
                [target]
                if node.module or not node.level
                else [[*target, a.name] for a in node.names]
            )
        elif isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names]
        else:
            continue
        found |= {named(t) for t in names if len(t) > 1 and t[0] == "course"}
    return found - {part(path)}


def test_no_class_name_is_defined_twice_in_the_package():
    twice = {name: paths for name, paths in classes_by_name(modules()).items() if len(paths) > 1}
    assert twice == {}


def upward(trees: dict[Path, ast.Module]) -> dict[str, list[str]]:
    """Each mapped module's imports of parts its part may not import."""
    wrong = {str(p.relative_to(COURSE)): sorted(course_imports(p, t) - MAY_IMPORT[part(p)])
             for p, t in trees.items() if part(p) in MAY_IMPORT}
    return {p: up for p, up in wrong.items() if up}


def test_no_part_imports_a_part_above_it():
    assert upward(modules()) == {}


def test_an_upward_import_is_seen_in_the_views_and_between_grading_rooms():
    tree = ast.parse("from ..grading.judging.oracle import Case\nfrom ..contract.call import Call")
    assert upward({COURSE / "viz" / "x.py": tree}) == {"viz/x.py": ["grading/judging"]}
    tree = ast.parse("from ..classroom import budget\nfrom ...contract import exercise\nfrom . "
                     "import cases")
    assert upward({COURSE / "grading" / "judging" / "x.py": tree}) == {
        "grading/judging/x.py": ["grading/classroom"]
    }
    assert upward({COURSE / "contract" / "x.py": ast.parse("import course.grading")}) == {
        "contract/x.py": ["grading"]
    }


def test_the_import_reader_sees_relative_and_absolute_imports(tmp_path):
    tree = ast.parse("from ..scenarios import get\nfrom . import tokens\nimport course.loop\nfrom "
                     "course.api import x")
    assert course_imports(COURSE / "api" / "record.py", tree) == {"scenarios", "loop"}
    tree = ast.parse("from .. import marks\nfrom ..judging import oracle\nfrom course.grading "
                     "import check")
    assert course_imports(COURSE / "grading" / "classroom" / "x.py", tree) == {
        "grading/marks",
        "grading/judging",
        "grading",
    }


def test_the_class_finder_sees_nested_classes():
    tree = ast.parse("class A:\n    class B: pass\ndef f():\n    class A: pass")
    assert classes_by_name({COURSE / "x.py": tree}) == {"A": ["course/x.py", "course/x.py"],
                                                        "B": ["course/x.py"]}
