"""English left in Japanese text: a phrase of four or more English words."""
from __future__ import annotations

import ast
import io
import re
import tokenize

# "5/10", "2.5", True: no words
NUMBER = re.compile(r"(?<![\w.])(?:\d+(?:[./]\d+)*|True|False|None)(?![\w])")
WORD = r"[A-Za-z][A-Za-z'’-]*"
# a name, a path or an identifier is not
PHRASE = re.compile(rf"(?<![\w./<{{-]){WORD}(?:[ ,;:()]+{WORD}){{3,}}")


def english_phrases(text: str) -> list[str]:
    """The phrases of four or more English words in `text` (numbers between the words do not break a
    phrase)."""
    return PHRASE.findall(NUMBER.sub("", text))


def words_of_code(source: str) -> list[str]:
    """What a reader reads as words in Python code: its comments and its strings (the code itself is
    not)."""
    try:
        comments = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT]
        strings = [n.value for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Constant)
                   and isinstance(n.value, str)]
    except (tokenize.TokenError, SyntaxError):  # a cell magic, a shell line: all of it
        return [source]
    return comments + strings
