"""The package's map holds: one name per meaning, and imports that never run back up a layer."""
import ast
from collections import defaultdict
from pathlib import Path

COURSE = Path(__file__).resolve().parents[2] / "course"

# what each part may import from the rest of `course`; the local API sits at the bottom, on the messages' blocks
# (a string content is one text block in one place). The messages may import course.i18n alone (their violations
# speak the course's language): a leaf that imports nothing else from the course.
MAY_IMPORT = {
    "api": {"messages", "i18n"},  # i18n is below both: the replay names where a run left its recording
    "messages": {"i18n"},
    "i18n": set(),
}


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
    """The first component under course/: `api` for course/api/handler.py, `loop` for course/loop.py."""
    return path.relative_to(COURSE).parts[0].removesuffix(".py")


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
            names = [target] if node.module or not node.level else [[*target, a.name] for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name.split(".") for a in node.names]
        else:
            continue
        found |= {t[1] for t in names if len(t) > 1 and t[0] == "course"}
    return found - {part(path)}


def test_no_class_name_is_defined_twice_in_the_package():
    twice = {name: paths for name, paths in classes_by_name(modules()).items() if len(paths) > 1}
    assert twice == {}


def test_the_local_api_and_the_messages_import_nothing_above_them():
    trees = modules()
    wrong = {str(p.relative_to(COURSE)): sorted(course_imports(p, t) - MAY_IMPORT[part(p)])
             for p, t in trees.items() if part(p) in MAY_IMPORT}
    assert {p: up for p, up in wrong.items() if up} == {}


def test_the_import_reader_sees_relative_and_absolute_imports(tmp_path):
    tree = ast.parse("from ..scenarios import get\nfrom . import tokens\nimport course.loop\nfrom course.api import x")
    assert course_imports(COURSE / "api" / "record.py", tree) == {"scenarios", "loop"}


def test_the_class_finder_sees_nested_classes():
    tree = ast.parse("class A:\n    class B: pass\ndef f():\n    class A: pass")
    assert classes_by_name({COURSE / "x.py": tree}) == {"A": ["course/x.py", "course/x.py"], "B": ["course/x.py"]}
