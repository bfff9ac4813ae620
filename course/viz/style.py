"""Colours and small HTML helpers shared by the views; inline styles only, so the
HTML renders the same in JupyterLab, in an ipywidgets HTML widget and in an
exported notebook."""
from __future__ import annotations

import html

# One colour per tool_use id, in order of first appearance (colour-blind-friendly Okabe-Ito set).
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
ERROR = "#C62828"  # is_error results, broken rules, error outcomes
OK = "#2E7D32"  # success, a rule that holds
MUTED = "#757575"  # pending or dropped content
FONT = "font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px"


def esc(value: object) -> str:
    """Text made safe for HTML."""
    return html.escape(str(value), quote=True)


def tag(label: str, colour: str, *, filled: bool = True) -> str:
    """A small rounded label, e.g. a role, a tool_use id or an outcome."""
    if filled:
        look = f"background:{colour};color:#fff"
    else:
        look = f"border:1px solid {colour};color:{colour}"
    return f'<span style="{look};border-radius:3px;padding:0 4px;margin-right:4px;white-space:nowrap">{esc(label)}</span>'


def shorten(text: str, limit: int = 160) -> str:
    """At most `limit` characters, with an ellipsis when cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
