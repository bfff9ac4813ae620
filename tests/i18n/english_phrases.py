"""English left in Japanese text: a phrase of four or more English words."""
from __future__ import annotations

import re

NUMBER = re.compile(r"(?<![\w.])\d+(?:[./]\d+)*(?![\w])")  # "5/10", "2.5": not words, and no break in a phrase
WORD = r"[A-Za-z][A-Za-z'’-]*"
PHRASE = re.compile(rf"(?<![\w./<{{-]){WORD}(?:[ ,;:()]+{WORD}){{3,}}")  # a name, a path or an identifier is not


def english_phrases(text: str) -> list[str]:
    """The phrases of four or more English words in `text` (numbers between the words do not break a phrase)."""
    return PHRASE.findall(NUMBER.sub("", text))
