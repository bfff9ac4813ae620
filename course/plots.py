"""Plots of a loop's costs: input tokens per call and in total (Prop. 5.2), the
budget against its limit (Prop. 5.4), and when tools ran (Prop. 6.2).

Every function returns a matplotlib Figure that pyplot no longer tracks, so a
notebook shows it once (as the cell's value, not again when the cell ends) and
nbval compares only its text repr.
"""
from __future__ import annotations

from itertools import accumulate

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from .context import window_bound
from .events import ToolEnd
from .viz.style import ERROR, OK, PALETTE


def new_figure(height: float) -> Figure:
    """A figure made through pyplot (so a notebook's inline backend can show it), then released by pyplot."""
    fig = plt.figure(figsize=(7, height), layout="constrained")
    plt.close(fig)
    return fig


def token_growth(inputs: list[int], *, window: int | None = None, title: str = "Input tokens per call") -> Figure:
    """Bars: n_k, the input of call k (grows linearly); line: the running total (grows quadratically).

    `inputs` comes from a run (`course.context.reported_inputs(result.usages)`) or from the
    material's model (`course.context.inputs_per_call(s, turn_sizes)`). With `window`, the note
    gives the bound K <= (W - s) / c + 1, with s = n_1 and c the smallest growth per call.
    """
    fig = new_figure(3.6)
    ax = fig.subplots()
    calls = range(1, len(inputs) + 1)
    ax.bar(calls, inputs, color=PALETTE[0], label="n_k: input of call k")
    ax.set_xlabel("model call k")
    ax.set_ylabel("input tokens of the call", color=PALETTE[0])
    ax.set_xticks(list(calls))
    total = list(accumulate(inputs))
    ax2 = ax.twinx()
    ax2.plot(calls, total, color=PALETTE[1], marker="o", label="total so far")
    ax2.set_ylabel("total input tokens", color=PALETTE[1])
    ax2.set_ylim(bottom=0)
    note = f"n_1 = {inputs[0]:,}, n_{len(inputs)} = {inputs[-1]:,}, total = {total[-1]:,}"
    growth = [b - a for a, b in zip(inputs, inputs[1:])]
    if window is not None and growth and min(growth) > 0:
        note += f"\nW = {window:,}: K ≤ {window_bound(window, inputs[0], min(growth))} calls"
    ax.text(0.02, 0.97, note, transform=ax.transAxes, va="top", fontsize=9)
    ax.set_title(title)
    return fig


def budget_spend(costs: list[float], limit: float, *, title: str = "Budget, checked after each response") -> Figure:
    """Bars: the cost of each response; line: the running spend S_k; dashed: the limit B.

    The loop compares S_k with B only after response k has arrived, so the last bar can
    cross the line: the overshoot S_k - B is less than that one response's cost (Prop. 5.4).
    """
    fig = new_figure(3.6)
    ax = fig.subplots()
    calls = list(range(1, len(costs) + 1))
    spent = list(accumulate(costs))
    ax.bar(calls, costs, color=PALETTE[4], label="c_k: cost of response k")
    ax.step(calls, spent, where="mid", color=OK, marker="o", label="S_k: spent so far")
    ax.axhline(limit, color=ERROR, linestyle="--", label=f"B = {limit:g}")
    if spent and spent[-1] >= limit:
        over = spent[-1] - limit
        ax.fill_between([calls[-1] - 0.4, calls[-1] + 0.4], limit, spent[-1], color=ERROR, alpha=0.25)
        ax.annotate(f"overshoot {over:.3g} < c_{calls[-1]} = {costs[-1]:.3g}", (calls[-1], spent[-1]),
                    xytext=(-10, 6), textcoords="offset points", ha="right", color=ERROR, fontsize=9)
    ax.set_xlabel("response k")
    ax.set_ylabel("USD")
    ax.set_xticks(calls)
    ax.set_ylim(0, max(spent + [limit]) * 1.15)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(title)
    return fig


def tool_timeline(runs: dict[str, list], *, title: str = "When each tool call ran") -> Figure:
    """One row of bars per run: each tool call from its start to its end (seconds since the run began).

    `runs` maps a label to the events of a run (`list(agent.events(prompt))`); calls that
    overlap ran in parallel, calls end to end ran one after another.
    """
    fig = new_figure(1.0 + 1.1 * len(runs))
    axes = fig.subplots(len(runs), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (label, events) in zip(axes, runs.items()):
        ends = [e for e in events if isinstance(e, ToolEnd)]
        for row, e in enumerate(ends):
            ax.barh(row, e.ended - e.started, left=e.started, color=ERROR if e.is_error else PALETTE[row % len(PALETTE)])
            ax.text(e.ended, row, f" {e.name} {e.id}", va="center", fontsize=8)
        span = max((e.ended for e in ends), default=0) - min((e.started for e in ends), default=0)
        ax.set_yticks(range(len(ends)), [f"#{row + 1}" for row in range(len(ends))], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{label}: {len(ends)} calls over {span:.2f} s", fontsize=9, loc="left")
    last = max((e.ended for events in runs.values() for e in events if isinstance(e, ToolEnd)), default=0)
    axes[-1].set_xlim(0, 1.4 * last or 1)  # the axes share x: room for every run's bars and their labels
    axes[-1].set_xlabel("seconds since the run started")
    fig.suptitle(title)
    return fig
