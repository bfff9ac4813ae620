"""Text a student controls, made safe to print and to write: what the grader shows is what happened.

A student's name (a folder name), an error message or a returned string may hold control characters
(ESC[1A ESC[2K CR rewrites the instructor's previous terminal line) or lone surrogates (a file name
that is not UTF-8, `ValueError('\\ud800')`), which no UTF-8 file or terminal can take. `printable`
writes each of them the way Python's repr does (`\\x1b`, `\\udcff`), so nothing is lost, nothing is
hidden, and the text always encodes.
"""
from __future__ import annotations

import re

# C0 and C1 control characters, DEL, and the surrogates (only lone ones reach a str)
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, keep: str = "") -> str:
    """`text` with every control character (but those in `keep`, e.g. "\\n") and every lone
    surrogate escaped."""
    return UNPRINTABLE.sub(lambda m: m[0] if m[0] in keep else escape(m[0]), text)


def name_bytes(name: str) -> bytes:
    """A name read from the file system (undecodable bytes as surrogates) as its bytes; any other
    lone surrogate as UTF-8 would write it (never raises)."""
    try:
        return name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogatepass")
