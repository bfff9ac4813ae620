"""Colours and small HTML helpers shared by the views; inline styles only, so the
HTML renders the same in JupyterLab, in an ipywidgets HTML widget and in an
exported notebook. The live explorer sends its frames with each style as a class
instead (`classed`), and the stylesheet once (`stylesheet`): a frame is a third the size."""
from __future__ import annotations

import hashlib
import html
import math
import re
from functools import cache

from ..i18n import tr_plural

# One colour per tool_use id, in order of first appearance: the Okabe-Ito hues
# (colour-blind-friendly), darkened where needed so white text on each reaches WCAG AA contrast
# (4.5:1).
PALETTE = ("#0072B2", "#8F5F00", "#00735A", "#A8467F", "#1D6FA0", "#B34700", "#6B6500", "#000000")
ERROR = "#C62828"  # is_error results, broken rules, error outcomes
OK = "#2E7D32"  # success, a rule that holds
MUTED = "#6B6B6B"  # pending or dropped content
# the theme's text colour: black on light, white on dark
THEME_TEXT = "var(--jp-content-font-color0, #000)"
DARK_BACKGROUNDS = ("#111111", "#212121")  # JupyterLab Dark's layout colours under an output
TEXT_CONTRAST = 4.7  # WCAG AA's 4.5:1, with room for a block's tinted background
FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px"
LINE = "line-height:1.4"  # set on every view: a widget's HTML would otherwise pass down its 28 px


def luminance(colour: str) -> float:
    """WCAG 2's relative luminance of a colour given as #RRGGBB."""
    channels = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two #RRGGBB colours."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def towards_white(colour: str, share: int) -> str:
    """`share` percent of `colour`, the rest white, as #RRGGBB."""
    channels = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c * share / 100 + 255 * (100 - share) / 100):02X}"
                         for c in channels)


@cache
def ink(colour: str) -> str:
    """`colour` for text in any theme: mixed with the theme's text colour (black on light, white on
    dark), as little as the dark backgrounds allow, so that it reads at TEXT_CONTRAST on both (the
    colour alone reads at 4.5:1 on white only)."""
    share = next(s for s in range(100, 0, -5)
                 if all(contrast(towards_white(colour, s), bg) >= TEXT_CONTRAST
                        for bg in DARK_BACKGROUNDS))
    return f"color-mix(in srgb, {colour} {share}%, {THEME_TEXT})"


def esc(value: object) -> str:
    """Text made safe for HTML."""
    return html.escape(str(value), quote=True)


def tag(label: str, colour: str, *, filled: bool = True) -> str:
    """A small rounded label, e.g. a role, a tool_use id or an outcome; a word: put a space between
    it and the next."""
    look = f"background:{colour};color:#fff" if filled else ("border:1px solid "
                                                             f"{colour};color:{ink(colour)}")
    return (f'<span style="{look};border-radius:3px;padding:0 '
            f'4px;white-space:nowrap">{esc(label)}</span>')


# views write class, if any, just before style
STYLE_ATTR = re.compile(r'(?: class="([^"]*)")? style="([^"]*)"')


def style_class(style: str) -> str:
    """The class of an inline style: one name for one style, in every explorer of a page."""
    return "cs-" + hashlib.sha1(style.encode()).hexdigest()[:8]


def classed(markup: str, styles: dict[str, str]) -> str:
    """`markup` with each inline style replaced by its class; `styles` (class -> style) gains the
    classes new to it."""
    def swap(m: re.Match) -> str:
        name = style_class(m[2])
        styles.setdefault(name, m[2])
        return f' class="{m[1]} {name}"' if m[1] else f' class="{name}"'
    return STYLE_ATTR.sub(swap, markup)


def stylesheet(styles: dict[str, str]) -> str:
    """The rules of `styles`, scoped to the explorer (and so above the widgets' own rules, as inline
    styles were)."""
    return "\n".join(f".course-explorer .{name} {{{style}}}" for name, style in styles.items())


def shorten(text: str, limit: int = 160) -> str:
    """At most `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def dollars(usd: float) -> str:
    """An amount in dollars: cents from $0.01 up, else two significant digits ($0.000079, $0.00010),
    never 1e-05; an amount those digits hold exactly loses its trailing zeros (a limit of
    $0.0005)."""
    if usd == 0:
        return "$0"
    if abs(usd) >= 0.01:
        return f"${usd:,.2f}"
    digits = 1 - math.floor(math.log10(abs(usd)))
    shown = f"{usd:.{digits}f}"
    return "$" + (shown.rstrip("0") if float(shown) == usd else shown)


def tokens(n: int) -> str:
    """A token count with thousands separators: 140,000."""
    return f"{n:,}"


def n_calls(n: int) -> str:
    """'1 call', '3 calls', in the language the course speaks."""
    return tr_plural("{n} call", "{n} calls", n).format(n=n)


def n_turns(n: int) -> str:
    """'1 turn', '0 turns', in the language the course speaks."""
    return tr_plural("{n} turn", "{n} turns", n).format(n=n)
