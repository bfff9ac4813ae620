"""The loop explorer: pick a scenario, set the limits and the gate, step through the run.

Each setting is run once, through `Agent.events()` on the in-process local API,
and kept as frames (`course.viz.frames`); moving the step slider or pressing
Play only redraws a stored frame. Without a front end (plain Python, nbval, an
exported notebook) the explorer shows a static HTML snapshot of its state, and
its text repr is deterministic.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import ipywidgets as w

from .gate import Gate
from .loop import Limits
from .scenarios import SCENARIOS
from . import viz
from .viz import Frame, frame_html
from .viz.run import outcome_html
from .viz.style import FONT, esc

MAX_TURNS_RANGE = (0, 15)  # the max_turns slider
BUDGET_STEPS = 100  # the budget slider runs from 0 (no limit) to about the scenario's cost, in this many steps
PATTERN_RULES = ("write_file(/etc/*)", "run_python(test_*.py)")  # deny rules with a pattern, offered when the tool exists


@dataclass(frozen=True)
class Setting:
    """Everything a run depends on: a key for the stored runs."""

    scenario: str
    max_turns: int
    max_budget_usd: float | None  # None: no budget limit
    deny: tuple[str, ...] = ()

    @property
    def limits(self) -> Limits:
        return Limits(max_turns=self.max_turns, max_budget_usd=self.max_budget_usd)


def own_rules(scenario: str) -> list[str]:
    """The deny rules the scenario's own gate has (on until toggled off)."""
    gate = SCENARIOS[scenario].gate
    return list(gate.deny) if gate else []


def deny_rules(scenario: str) -> list[str]:
    """The deny rules offered for a scenario: its own, each of its tools, the pattern rules that apply."""
    names = list(SCENARIOS[scenario].tools().tools)
    offered = own_rules(scenario) + names + [r for r in PATTERN_RULES if r.split("(")[0] in names]
    return list(dict.fromkeys(offered))


def run_frames(setting: Setting) -> list[Frame]:
    """Run the scenario once under `setting`, in-process, and keep every frame."""
    sc = SCENARIOS[setting.scenario]
    gate = replace(sc.gate or Gate(), deny=list(setting.deny))  # the scenario's gate, with the chosen deny rules
    return viz.frames(sc.agent(limits=setting.limits, gate=gate).events(sc.prompt))


def budget_scale(spent: float) -> float:
    """A round slider maximum at or above `spent`: 1, 2 or 5 times a power of ten."""
    power = 10.0 ** math.floor(math.log10(spent)) if spent > 0 else 1e-4
    return next(k * power for k in (1, 2, 5, 10) if k * power >= spent)


class Explorer:
    """An interactive view of the reference loop on the course's scenarios."""

    def __init__(self, scenario: str = "aurora_run", *, max_turns: int = 10, max_budget_usd: float | None = None,
                 deny: list[str] | None = None):
        """`deny` None keeps the scenario's own deny rules; a list replaces them."""
        self.runs: dict[Setting, list[Frame]] = {}  # one run per setting, computed on first use
        self.quiet = False  # True while several controls change together
        self.scenario = w.Dropdown(options=[(f"{n}: {s.title}", n) for n, s in SCENARIOS.items()], value=scenario,
                                   description="scenario", layout=w.Layout(width="420px"))
        self.max_turns = w.IntSlider(value=max_turns, min=MAX_TURNS_RANGE[0], max=MAX_TURNS_RANGE[1],
                                     description="max_turns", continuous_update=False)
        self.budget = w.FloatSlider(value=0.0, min=0.0, description="budget $", readout_format=".5f",
                                    continuous_update=False)
        self.rules = w.HBox()
        self.play = w.Play(value=0, min=0, max=0, interval=700, description="play")
        self.step = w.IntSlider(value=0, min=0, max=0, description="step")
        w.jslink((self.play, "value"), (self.step, "value"))
        self.outcome_label = w.HTML()
        self.view = w.HTML()
        self.ui = w.VBox([
            w.HBox([self.scenario, self.outcome_label]),
            w.HBox([self.max_turns, self.budget, w.HTML(f'<span style="{FONT}">(budget 0 = no limit)</span>')]),
            w.HBox([w.Label("deny:"), self.rules]),
            w.HBox([self.play, self.step]),
            self.view,
        ]).add_class("course-explorer")
        self.show_rules(own_rules(scenario) if deny is None else deny)
        self.scale_budget(max_budget_usd)
        self.scenario.observe(self.on_scenario, "value")
        for control in (self.max_turns, self.budget):
            control.observe(self.on_setting, "value")
        self.step.observe(self.on_step, "value")
        self.update()

    # --- state ----------------------------------------------------------------------------------------
    @property
    def setting(self) -> Setting:
        denied = tuple(b.description for b in self.rules.children if b.value)
        return Setting(self.scenario.value, self.max_turns.value, self.budget.value or None, denied)

    def run(self, setting: Setting) -> list[Frame]:
        """The frames of a setting, run on first use only."""
        if setting not in self.runs:
            self.runs[setting] = run_frames(setting)
        return self.runs[setting]

    @property
    def frames(self) -> list[Frame]:
        return self.run(self.setting)

    @property
    def frame(self) -> Frame:
        return self.frames[self.step.value]

    @property
    def outcome(self) -> str:
        """The result subtype of the run under the current setting."""
        return self.frames[-1].outcome

    def set(self, scenario: str | None = None, *, max_turns: int | None = None, max_budget_usd: float | None = ...,
            deny: list[str] | None = None, step: int | None = None) -> "Explorer":
        """Change controls from code, as a learner would, with one re-run; the view shows the last frame or `step`."""
        before = self.setting
        self.quiet = True
        try:
            if scenario is not None:
                self.scenario.value = scenario
            if max_turns is not None:
                self.max_turns.value = max_turns
            if max_budget_usd is not ...:
                self.scale_budget(max_budget_usd)
            for b in self.rules.children if deny is not None else ():
                b.value = b.description in deny
        finally:
            self.quiet = False
        if self.setting != before:
            self.update()
        if step is not None:
            self.step.value = step
        return self

    # --- reacting to the controls -----------------------------------------------------------------------
    def show_rules(self, denied=()) -> None:
        buttons = [w.ToggleButton(value=r in denied, description=r, tooltip=f"deny {r}", layout=w.Layout(width="auto"))
                   for r in deny_rules(self.scenario.value)]
        for b in buttons:
            b.observe(self.on_setting, "value")
        self.rules.children = buttons

    def scale_budget(self, value: float | None = None) -> None:
        """Fit the budget slider to what the scenario costs without a budget, and set it (0: no limit)."""
        top = budget_scale(self.run(replace(self.setting, max_budget_usd=None))[-1].spent)
        with self.budget.hold_trait_notifications():
            self.budget.max = max(top, value or 0.0)
            self.budget.step = self.budget.max / BUDGET_STEPS
            self.budget.value = value or 0.0

    def on_scenario(self, change) -> None:
        quiet, self.quiet = self.quiet, True  # one update for the new scenario, not one per control it resets
        try:
            self.show_rules(own_rules(change["new"]))
            self.scale_budget()
        finally:
            self.quiet = quiet
        self.on_setting(change)

    def on_setting(self, change) -> None:
        if not self.quiet:
            self.update()

    def on_step(self, change) -> None:
        self.render()

    def update(self) -> None:
        """Run (or fetch) the current setting, show its outcome and jump to its last frame."""
        run = self.frames
        last = len(run) - 1
        final = run[-1]
        self.outcome_label.value = (f'<span style="{FONT}">outcome: <span class="course-outcome">{esc(final.outcome)}</span> '
                              f'after {final.calls} calls, {final.turns} turns</span>')
        shown = self.step.value
        with self.step.hold_trait_notifications():
            self.step.max = self.play.max = last
            self.step.value = self.play.value = last
        if shown == last:  # otherwise the step observer has rendered
            self.render()

    def render(self) -> None:
        self.view.value = frame_html(self.frame, self.setting.limits, self.step.value, len(self.frames))

    # --- static output ------------------------------------------------------------------------------------
    def html(self) -> str:
        """A snapshot of the explorer's state, for outputs without a front end."""
        s, f = self.setting, self.frame
        budget = "none" if s.max_budget_usd is None else f"${s.max_budget_usd:g}"
        head = (f"<div><b>Loop explorer</b> · scenario {esc(s.scenario)} · max_turns {s.max_turns} · "
                f"max_budget_usd {esc(budget)} · deny: {esc(', '.join(s.deny) or 'nothing')}</div>"
                f"<div>outcome of the run: {outcome_html(self.outcome, self.frames[-1].answer)}</div>")
        return f'<div style="{FONT}">{head}{frame_html(f, s.limits, self.step.value, len(self.frames))}</div>'

    def __repr__(self) -> str:
        s, final = self.setting, self.frames[-1]
        return (f"Explorer(scenario={s.scenario!r}, max_turns={s.max_turns}, max_budget_usd={s.max_budget_usd}, "
                f"deny={list(s.deny)}): {final.outcome} after {final.calls} calls, {final.turns} turns; "
                f"step {self.step.value}/{len(self.frames) - 1}")

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget where a front end is, else the HTML snapshot; text/plain is deterministic."""
        return {**self.ui._repr_mimebundle_(**kwargs), "text/plain": repr(self), "text/html": self.html()}
