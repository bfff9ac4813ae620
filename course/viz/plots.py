"""Plots of a loop's costs: input tokens per call and in total (Prop. 5.2), the
budget against its limit (Prop. 5.4), and when tools ran (Prop. 6.2).

Every function returns a matplotlib Figure that pyplot no longer tracks, so a
notebook shows it once (as the cell's value, not again when the cell ends) and
nbval compares only its text repr.
"""
from __future__ import annotations

from functools import cache, wraps
from importlib.util import find_spec
from itertools import accumulate
from pathlib import Path
from typing import TypeVar

import matplotlib.pyplot as plt
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ..context import window_bound
from ..events import ToolEnd
from ..i18n import deferred, language, tr
from .style import ERROR, OK, PALETTE, dollars, n_calls, tokens

TOKENS = FuncFormatter(lambda v, _: tokens(round(v)))  # axis ticks: 140,000
DOLLARS = FuncFormatter(lambda v, _: dollars(v))  # axis ticks: $0.0005
LABEL_SIZE = 10  # the smallest text on a plot
# at 100 dpi, within JupyterLab's output area at 1024 px with the file browser open (592 px)
WIDTH_IN = 5.6
TOKENS_TITLE = deferred("Input tokens per call")
BUDGET_TITLE = deferred("Budget, checked after each response")
TIMELINE_TITLE = deferred("When each tool call ran")


@cache
def japanese_font() -> str:
    """The font matplotlib-fontja ships (IPAexGothic), registered with matplotlib. Its file is found
    without importing the package, whose import would set that font for every plot, English ones
    too."""
    from matplotlib import font_manager

    spec = find_spec("matplotlib_fontja")  # a dependency of the course: always installed
    assert spec is not None and spec.submodule_search_locations
    path = Path(spec.submodule_search_locations[0]) / "fonts" / "ipaexg.ttf"
    font_manager.fontManager.addfont(path)
    return font_manager.FontProperties(fname=path).get_name()


def drawable(plot):
    """`plot` in the language the course speaks; Japanese text is drawn in matplotlib-fontja's font,
    not as boxes."""
    @wraps(plot)
    def in_the_language_spoken(*args, **kwargs):
        if language() == "en":
            return plot(*args, **kwargs)
        # Latin text keeps its font; the glyphs it lacks come from the Japanese font
        with plt.rc_context(
            {"font.family": list(dict.fromkeys([*plt.rcParams["font.family"], japanese_font()]))}
        ):
            return plot(*args, **kwargs)
    return in_the_language_spoken


def usd(amount: float) -> str:
    """Dollars in a plot's text, where a pair of $ would start matplotlib's math mode."""
    return dollars(amount).replace("$", r"\$")


class DescribedFigure(Figure):
    """A Figure a notebook shows with its description as an output of its own, right after the
    image: JupyterLab gives an image output no alt text, so this text is what a screen reader reads
    (nbval compares it too)."""
    description = ""

    def _ipython_display_(self):
        from IPython.core.pylabtools import print_figure
        from IPython.display import display

        display({"image/png": print_figure(self, "png", base64=True), "text/plain": repr(self)},
                raw=True)
        if self.description:  # in Markdown a $ would start math
            display({"text/markdown": self.description.replace("$", r"\$"),
                     "text/plain": self.description}, raw=True)


F = TypeVar("F", bound=Figure)  # the kind of figure new_figure makes


def new_figure(height: float, figure_class: type[F]) -> F:
    """A figure made through pyplot (so a notebook's inline backend can show it), then released by
    pyplot."""
    fig = plt.figure(figsize=(WIDTH_IN, height), layout="constrained", FigureClass=figure_class)
    plt.close(fig)
    assert isinstance(fig, figure_class)  # pyplot made it of the class asked for
    return fig


@drawable
def token_growth(inputs: list[int], *, window: int | None = None,
                 title: str = TOKENS_TITLE) -> Figure:
    """Bars: n_k, the input of call k (grows linearly); line: the running total (grows
    quadratically).

    `inputs` comes from a run (`course.context.reported_inputs(result.usages)`) or from the
    material's model (`course.context.inputs_per_call(s, turn_sizes)`). With `window`, the note
    gives the bound K <= (W - s) / c + 1, with s = n_1 and c the smallest growth per call.
    """
    fig = new_figure(3.6, DescribedFigure)
    ax = fig.subplots()
    calls = range(1, len(inputs) + 1)
    bars = ax.bar(calls, inputs, color=PALETTE[0], label=tr("n_k: input of call k (left axis)"))
    ax.set_xlabel(tr("model call k"))
    ax.set_ylabel(tr("input tokens of the call"), color=PALETTE[0])
    ax.set_xticks(list(calls))
    ax.yaxis.set_major_formatter(TOKENS)
    growth = [b - a for a, b in zip(inputs, inputs[1:], strict=False)]
    low, high = min(inputs), max(inputs)
    # from 0 the growth per call would not show: start the axis near the smallest call
    if low > high / 2:
        bottom = max(0, low - (high - low))
        ax.set_ylim(bottom, high + (high - bottom) * 0.45)
        ax.set_ylabel(tr("input tokens of the call\n(axis from {bottom})").format(
            bottom=tokens(round(bottom))),
                      color=PALETTE[0])
        # each call's growth under its number, where no bar or marker of the line can cover it
        ax.set_xticks(list(calls), ["1"] + [f"{k}\n+{tokens(step)}" for k,
                                            step in zip(calls[1:], growth, strict=True)])
        ax.set_xlabel(tr("model call k, and its growth over call k - 1"))
    else:
        ax.set_ylim(0, high * 1.45)  # room for the note and the legend above the bars
    total = list(accumulate(inputs))
    ax2 = ax.twinx()
    line = ax2.plot(calls, total, color=PALETTE[1], marker="o",
                    label=tr("total so far (right axis)"))
    ax2.set_ylabel(tr("total input tokens"), color=PALETTE[1])
    ax2.set_ylim(0, total[-1] * 1.45)
    ax2.yaxis.set_major_formatter(TOKENS)
    note = tr("n_1 = {first}, n_{k} = {last}, total = {total}").format(
        first=tokens(inputs[0]), k=len(inputs), last=tokens(inputs[-1]), total=tokens(total[-1]))
    fig.description = tr("Figure: bars, the input tokens of each of {count} model calls, from "
                         "{first} (call 1) to {last} (call {count}); line, the running total, "
                         "{total} after call {count}.").format(
        count=len(inputs), first=tokens(inputs[0]), last=tokens(inputs[-1]),
        total=tokens(total[-1]))
    if window is not None and growth and min(growth) > 0:
        bound = window_bound(window, inputs[0], min(growth))
        note += "\n" + tr("W = {window}: K ≤ {bound} calls").format(
            window=tokens(window), bound=bound)
        fig.description += " " + tr(
            "With a window of {window} tokens, at most {bound} calls fit."
        ).format(window=tokens(window), bound=bound)
    ax.text(0.02, 0.97, note, transform=ax.transAxes, va="top", fontsize=LABEL_SIZE - 1)
    ax2.legend(handles=[bars, *line], loc="upper left", bbox_to_anchor=(0, 0.84),
               fontsize=LABEL_SIZE - 1)
    ax.set_title(tr(title), fontsize=LABEL_SIZE + 1, wrap=True)
    return fig


@drawable
def budget_spend(costs: list[float], limit: float, *, title: str = BUDGET_TITLE) -> Figure:
    """Bars: the cost of each response; line: the running spend S_k; dashed: the limit B.

    The loop compares S_k with B only after response k has arrived, so the last bar can
    cross the line: the overshoot S_k - B is less than that one response's cost (Prop. 5.4).
    """
    fig = new_figure(3.6, DescribedFigure)
    ax = fig.subplots()
    calls = list(range(1, len(costs) + 1))
    spent = list(accumulate(costs))
    fig.description = tr("Figure: bars, the cost of each of {count} responses; line, the spend so "
                         "far, {spent} after response {count}; dashed line, the budget B = "
                         "{limit}.").format(
        count=len(costs), spent=dollars(spent[-1]) if spent else dollars(0), limit=dollars(limit))
    ax.bar(calls, costs, color=PALETTE[4], label=tr("c_k: cost of response k"))
    ax.step(calls, spent, where="mid", color=OK, marker="o", label=tr("S_k: spent so far"))
    ax.axhline(limit, color=ERROR, linestyle="--", label=f"B = {usd(limit)}")
    if spent and spent[-1] >= limit:
        over = spent[-1] - limit
        ax.fill_between([calls[-1] - 0.4, calls[-1] + 0.4], limit, spent[-1], color=ERROR,
                        alpha=0.25)
        overshoot = tr("overshoot {over} < c_{k} = {cost}").format(
            over=usd(over), k=calls[-1], cost=usd(costs[-1]))
        fig.description += " " + tr("The spend reaches B at response {k}: the overshoot, {over}, "
                                    "is less than that response's cost, {cost}.").format(
                                        k=calls[-1], over=dollars(over),
                                                                       cost=dollars(costs[-1]))
        ax.annotate(overshoot, (calls[-1], spent[-1]),
                    xytext=(-10, 6), textcoords="offset points", ha="right", color=ERROR,
                    fontsize=LABEL_SIZE - 1)
    ax.set_xlabel(tr("response k"))
    ax.set_ylabel(tr("spent (USD)"))
    ax.yaxis.set_major_formatter(DOLLARS)
    ax.set_xticks(calls)
    ax.set_ylim(0, max(spent + [limit]) * 1.15)
    # beside the plot, off the B line
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=LABEL_SIZE - 1)
    ax.set_title(tr(title), fontsize=LABEL_SIZE + 1, wrap=True)
    return fig


@drawable
def tool_timeline(runs: dict[str, list], *, title: str = TIMELINE_TITLE) -> Figure:
    """One row of bars per run: each tool call from its start to its end (seconds since the run
    began).

    `runs` maps a label to the events of a run (`list(agent.events(prompt))`); calls that
    overlap ran in parallel, calls end to end ran one after another.
    """
    fig = new_figure(1.0 + 1.1 * len(runs), DescribedFigure)
    axes = fig.subplots(len(runs), 1, sharex=True, squeeze=False)[:, 0]
    # the description, a sentence per run: no seconds (the wall clock's), only what overlapped
    rows = []
    for ax, (label, events) in zip(axes, runs.items(), strict=True):
        ends = [e for e in events if isinstance(e, ToolEnd)]
        rows.append(timeline_row(label, ends))
        for row, e in enumerate(ends):
            ax.barh(row, e.ended - e.started, left=e.started,
                    color=ERROR if e.is_error else PALETTE[row % len(PALETTE)])
        span = max((e.ended for e in ends), default=0) - min((e.started for e in ends), default=0)
        ax.set_yticks(range(len(ends)), [f"#{row + 1} {e.name}" for row, e in enumerate(ends)],
                      fontsize=LABEL_SIZE)
        ax.invert_yaxis()
        ax.set_title(
            tr("{label}: {count} calls over {seconds:.2f} s").format(label=label, count=len(ends),
                                                                                 seconds=span),
            fontsize=LABEL_SIZE + 1, loc="left")
    last = max((e.ended for events in runs.values() for e in events if isinstance(e, ToolEnd)),
               default=0)
    axes[-1].set_xlim(0, last * 1.02 or 1)  # the axes share x: up to the last call's end
    axes[-1].set_xlabel(tr("seconds since the run started"))
    fig.suptitle(tr(title))
    fig.description = " ".join([tr("Figure: one row of bars per run, each tool call a bar from its "
                                   "start to its end."),
                                *rows])
    return fig


def timeline_row(label: str, ends: list[ToolEnd]) -> str:
    """A run of the timeline in words: its calls, and how many of them ran at the same time at
    most."""
    if not ends:
        return tr("{label}: no tool calls.").format(label=label)
    names = ", ".join(f"#{row + 1} {e.name}" for row, e in enumerate(ends))
    at_once = max(sum(1 for o in ends if o.started <= e.started < o.ended) for e in ends)
    if len(ends) == 1:
        line = tr("{label}: {calls} ({names}).")
    elif at_once == 1:
        line = tr("{label}: {calls} ({names}), one after another, none overlapping.")
    elif at_once == len(ends):
        line = tr("{label}: {calls} ({names}), all of them running at the same time.")
    else:
        line = tr("{label}: {calls} ({names}), at most {count} of them running at the same time.")
    return line.format(label=label, calls=n_calls(len(ends)), names=names, count=at_once)
