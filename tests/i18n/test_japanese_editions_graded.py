"""The shipped notebooks of both editions, graded on the wire in one class: every solution gets full
marks, every stub none with the stub's reason on every check, each Japanese notebook the marks of
its English original grade_id by grade_id, and what the reports say is Japanese."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course.editions.translation import JAPANESE  # a kana or kanji

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = {("en", "solutions"): ROOT / "solutions", ("ja", "solutions"): ROOT / "solutions" / "ja",
            ("en", "exercises"): ROOT / "exercises", ("ja", "exercises"): ROOT / "exercises" / "ja"}
STEMS = sorted(p.stem for p in (ROOT / "solutions").glob("*.ipynb"))


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict:
    """{(lang, folder): {stem: Gradescope report}}, from one `python -m course grade` of a class
    whose students are the four folders, each submitting its notebooks."""
    root = tmp_path_factory.mktemp("editions")
    for (lang, folder), path in EDITIONS.items():
        (root / "class" / f"{lang}-{folder}").mkdir(parents=True)
        for notebook in path.glob("*.ipynb"):
            shutil.copy(notebook, root / "class" / f"{lang}-{folder}" / notebook.name)
    out = root / "out"
    done = subprocess.run([sys.executable, "-m", "course", "grade", root / "class", "--out", out],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return {(lang, folder): {stem: json.loads(
        (out / f"{lang}-{folder}" / f"{stem}.json").read_text())
                             for stem in STEMS} for lang, folder in EDITIONS}


def marks(report: dict) -> list[tuple]:
    return [(t["name"].split(":")[0], t["score"], t["max_score"]) for t in report["tests"]]


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["solutions", "exercises"])
@pytest.mark.parametrize("stem", STEMS)
def test_a_japanese_notebook_gets_the_marks_of_its_english_original(reports, folder, stem):
    en, ja = reports["en", folder][stem], reports["ja", folder][stem]
    pairs = zip(en["tests"], ja["tests"], strict=False)  # a failing report may hold fewer tests
    differing = [(e["output"], j["output"]) for e, j in pairs if e["score"] != j["score"]]
    assert marks(ja) == marks(en) and ja["score"] == en["score"], differing
    assert en["score"] == (
        sum(t["max_score"] for t in en["tests"]) if folder == "solutions" else 0
    ), differing
    if folder == "exercises":  # each stub's every check says why
        assert all("not implemented yet" in t["output"] for t in en["tests"]), en["tests"]
        assert all("まだ実装されていません" in t["output"] for t in ja["tests"]), ja["tests"]


@pytest.mark.slow
@pytest.mark.parametrize("stem", STEMS)
def test_what_the_reports_of_a_japanese_notebook_say_is_japanese(reports, stem):
    for folder in ("solutions", "exercises"):
        for test in reports["ja", folder][stem]["tests"]:
            assert JAPANESE.search(test["name"]) and JAPANESE.search(test["output"]), test
        for test in reports["en", folder][stem]["tests"]:
            assert not JAPANESE.search(test["name"] + test["output"]), test
