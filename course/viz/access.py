"""The explorer's front-end half (access.js, access.css): it shows the frames, and is there for a
keyboard and a screen reader.

Once a page shows the explorer, every run made goes to the page once (`send_run`): per frame its
head (step, meters, outcome) and its message list, each list once (runs under other limits share
them), with the sentence a screen reader hears and the run's outcome line. The page then switches
the frame shown itself when the step or max_turns slider moves, with no kernel round trip; a
max_turns whose run is not made yet shows `pending` until it arrives, and so does the view after the
scenario, the budget or a deny rule moved, until the kernel has answered (`name`). The runs travel
as messages, not as widget state: a saved notebook keeps only the frame on screen.
"""
from __future__ import annotations

import threading
from pathlib import Path

import anywidget
import ipywidgets as w
import traitlets

from .style import classed, stylesheet

HERE = Path(__file__).parent


class Access(anywidget.AnyWidget):
    """In the explorer's box: a key pressed on a control stays in the explorer (no JupyterLab
    shortcut but save and run; Escape goes back to the cell), sliders are named by their labels and
    read by their readouts, toggles say on or off (aria-pressed), the focus ring is 2 px, `announce`
    is read out by a screen reader whenever it changes (a live region), and the frame of the step
    and max_turns sliders is shown in `view`, the run's outcome in `outcome`."""

    _esm = HERE / "access.js"
    _css = HERE / "access.css"
    announce = traitlets.Unicode("").tag(sync=True)
    # the frames' stylesheet (style.stylesheet), grown as they need
    styles = traitlets.Unicode("").tag(sync=True)
    # the setting but max_turns: a run's key is "<base>/<max_turns>"
    base = traitlets.Unicode("").tag(sync=True)
    # the view while a run is made ("{max_turns}" in it filled in)
    pending = traitlets.Unicode("").tag(sync=True)
    pending_outcome = traitlets.Unicode("").tag(sync=True)  # the outcome line meanwhile
    step = traitlets.Instance(w.IntSlider, allow_none=True).tag(sync=True, **w.widget_serialization)
    max_turns = traitlets.Instance(w.IntSlider, allow_none=True).tag(
        sync=True, **w.widget_serialization)
    view = traitlets.Instance(w.HTML, allow_none=True).tag(sync=True, **w.widget_serialization)
    outcome = traitlets.Instance(w.HTML, allow_none=True).tag(sync=True, **w.widget_serialization)
    # the controls of the setting but max_turns: once one moves, the view says "running" until
    # `name` is called
    settings = traitlets.List(traitlets.Instance(w.Widget)).tag(sync=True, **w.widget_serialization)

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.live = False  # a page shows the frames: the kernel draws none from then on
        self.known: dict[str, str] = {}  # the classes the page has, for the frames' inline styles
        self.sent: set[str] = set()  # the runs the page has
        self.lists: dict[str, int] = {}  # the message lists the page has, by number
        self.lock = threading.Lock()  # runs are sent from the run-ahead thread too

    def ready(self) -> None:
        """A page has asked for the runs (it is new, or reloaded): it has none yet, and shows frames
        from now on."""
        with self.lock:
            self.live = True
            self.sent.clear()
            self.lists.clear()

    def name(self, base: str) -> None:
        """The kernel has answered the controls: the setting is `base` (said even when it is
        unchanged, so that a page waiting since a control moved stops waiting)."""
        self.base = base
        if self.live:
            self.send({"base": base})

    def classed(self, markup: str) -> str:
        """`markup` with classes for its inline styles; a style new to the page goes there first."""
        known = len(self.known)
        markup = classed(markup, self.known)
        if len(self.known) != known:
            self.styles = stylesheet(self.known)
        return markup

    def send_run(self, key: str, parts: list[tuple[str, str]], said: list[str], outcome: str,
                 first: str) -> None:
        """Send run `key` to the page, once: its frames (head, message list), the sentence of each,
        its outcome line, and what is said when it is switched to (its outcome, then its last
        step)."""
        with self.lock:
            if not self.live or key in self.sent:
                return
            self.sent.add(key)
            known, new, frames = len(self.known), {}, []
            for head, rest in parts:
                rest = classed(rest, self.known)
                if rest not in self.lists:
                    new[len(self.lists)] = rest
                    self.lists[rest] = len(self.lists)
                frames.append([classed(head, self.known), self.lists[rest]])
            outcome = classed(outcome, self.known)
            if len(self.known) != known:  # the stylesheet first: the run's frames use it
                self.styles = stylesheet(self.known)
            self.send({"run": key, "frames": frames, "pieces": new, "said": said,
                       "outcome": outcome, "first": first})
