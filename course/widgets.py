"""The loop explorer: pick a scenario, set the limits and the gate, step through the run.

Each setting is run once, through `Agent.events()` on the in-process local API,
and kept as frames (`course.viz.frames`); moving the step slider or pressing
Play only redraws a stored frame. Without a front end (plain Python, nbval, an
exported notebook) the explorer shows a static HTML snapshot of its state, and
its text repr is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass

import ipywidgets as w

from .gate import Gate
from .loop import Limits
from .scenarios import SCENARIOS
from . import viz
from .viz import Frame, frame_html
from .viz.run import outcome_html
from .viz.style import FONT, esc

MAX_TURNS_RANGE = (0, 15)  # the max_turns slider
BUDGET_RANGE = (0.0, 0.002, 0.00002)  # the budget slider in USD: min (= no limit), max, step
PATTERN_RULES = ("write_file(/etc/*)",)  # example deny rules with a pattern, offered when the tool exists


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


def deny_rules(scenario: str) -> list[str]:
    """The gate rules offered for a scenario: each of its tools, then the pattern rules that apply to them."""
    names = list(SCENARIOS[scenario].make_tools().tools)
    return names + [r for r in PATTERN_RULES if r.split("(")[0] in names]


def run_frames(setting: Setting) -> list[Frame]:
    """Run the scenario once under `setting`, in-process, and keep every frame."""
    sc = SCENARIOS[setting.scenario]
    agent = sc.agent(limits=setting.limits, gate=Gate(deny=list(setting.deny)))
    return viz.frames(agent.events(sc.prompt))


class Explorer:
    """An interactive view of the reference loop on the course's scenarios."""

    def __init__(self, scenario: str = "aurora_run", *, max_turns: int = 10, max_budget_usd: float | None = None,
                 deny: tuple[str, ...] | list[str] = ()):
        self.runs: dict[Setting, list[Frame]] = {}  # one run per setting, computed on first use
        self.scenario = w.Dropdown(options=[(f"{n}: {s.title}", n) for n, s in SCENARIOS.items()], value=scenario,
                                   description="scenario", layout=w.Layout(width="420px"))
        self.max_turns = w.IntSlider(value=max_turns, min=MAX_TURNS_RANGE[0], max=MAX_TURNS_RANGE[1],
                                     description="max_turns", continuous_update=False)
        low, high, step = BUDGET_RANGE
        self.budget = w.FloatSlider(value=max_budget_usd or low, min=low, max=high, step=step, readout_format=".5f",
                                    description="budget $", continuous_update=False)
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
        self.show_rules(deny)
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

    @property
    def frames(self) -> list[Frame]:
        key = self.setting
        if key not in self.runs:
            self.runs[key] = run_frames(key)
        return self.runs[key]

    @property
    def frame(self) -> Frame:
        return self.frames[self.step.value]

    @property
    def outcome(self) -> str:
        """The result subtype of the run under the current setting."""
        return self.frames[-1].outcome

    def set(self, **values) -> "Explorer":
        """Change controls from code: scenario, max_turns, max_budget_usd, deny (a list of rules), step."""
        controls = {"scenario": self.scenario, "max_turns": self.max_turns, "max_budget_usd": self.budget, "step": self.step}
        for name, value in values.items():
            if name == "deny":
                for b in self.rules.children:
                    b.value = b.description in value
            elif name == "max_budget_usd":
                self.budget.value = value or 0.0
            else:
                controls[name].value = value
        return self

    # --- reacting to the controls -----------------------------------------------------------------------
    def show_rules(self, denied=()) -> None:
        buttons = [w.ToggleButton(value=r in denied, description=r, tooltip=f"deny {r}", layout=w.Layout(width="auto"))
                   for r in deny_rules(self.scenario.value)]
        for b in buttons:
            b.observe(self.on_setting, "value")
        self.rules.children = buttons

    def on_scenario(self, change) -> None:
        self.show_rules()
        self.update()

    def on_setting(self, change) -> None:
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
        with self.step.hold_trait_notifications():
            self.step.max = self.play.max = last
        if self.step.value == last:
            self.render()
        else:
            self.step.value = self.play.value = last  # the step observer renders

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
