"""The Japanese edition keeps docs/GLOSSARY.md's words: the variants its notes turn down appear
nowhere in the translations (prose and code) or the library's Japanese messages."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# a word the glossary turns down -> the glossary's word (and its row)
TURNED_DOWN = {
    "ゲート": "関門 (gate)",
    "実時間": "実経過時間 (Guard 2: wall-clock timeout)",
    "見張り": "ガード (guard)",
    "サブタイプ": "種別 (subtype of a result)",
    "ユーザーメッセージ": "user メッセージ (user message)",
    "ロール": "役割 (role)",
    "返事": "応答 (reply / response)",
    "プロンプトチェーン": "プロンプトの連鎖 (prompt chaining)",
}
FILES = sorted((ROOT / "translations" / "ja").rglob("*.md")) + [ROOT / "course/locale/ja/LC_"
                                                                       "MESSAGES/course.po"]


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_the_japanese_edition_uses_the_glossarys_words(path):
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".po":  # only the Japanese side of the catalogue
        text = "\n".join(re.findall(r'^msgstr(?:\[\d\])? (".*")$', text, re.M))
    found = [(n, line.strip()[:80], word, TURNED_DOWN[word]) for n,
             line in enumerate(text.splitlines(), 1)
             for word in TURNED_DOWN
             if word in line.replace("コントロール", "").replace("スクロール", "")]
    assert found == []
