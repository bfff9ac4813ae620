"""The loop explorer: pick a scenario, set the limits and the gate, step through the run.

Each setting is run once on the in-process local API and kept as frames: by default
through `course.loop.Agent.events()` (`course.viz.frames`); with `loop=agent_loop`,
the student's own function, read back from the wire (`course.viz.student`). Moving
the step slider or pressing play only shows a stored frame. Once a learner moves a control, the
settings they may pick next run ahead on a background thread that steps aside whenever a control
moves (RunAhead). Its front-end half (course/viz/access.py) gets every run made, and switches the
frame shown in the page when the step or max_turns slider moves, with no kernel round trip; it keeps
keys pressed in it from JupyterLab's shortcuts (but save and run), names the sliders, says which
toggles are on and announces each step. Without a front end (plain Python, nbval, an exported
notebook) the explorer draws its frames itself and shows a static HTML snapshot of its state, and
its text repr is deterministic.
"""
from __future__ import annotations

import contextvars
import json
import math
import threading
import time
from dataclasses import dataclass, replace
from functools import partial
from types import EllipsisType

import ipywidgets as w

from ..gate import Gate
from ..i18n import deferred, tr
from ..loop import Limits
from ..scenarios import SCENARIOS
from .access import Access
from .run import Frame, frame_html, frame_parts, frames, outcome_tag, step_line
from .student import FEATURES, StudentLoop
from .style import FONT, LINE, MUTED, dollars, esc, ink, n_calls, n_turns

MAX_TURNS_RANGE = (0, 15)  # the max_turns slider
# the budget slider runs from 0 (no limit) to about the scenario's cost, in this many steps
BUDGET_STEPS = 100
# deny rules with a pattern, offered if the tool exists
PATTERN_RULES = ("write_file(/etc/*)", "run_python(test_*.py)")
# a control keeps its full label on a narrow screen
NO_SHRINK = {"flex": "0 0 auto", "width": "auto"}
# a run ahead waits until no control has moved for this long: a change never waits behind it
QUIET_S = 0.1
# a row of controls wraps instead of clipping
WRAP = {"flex_flow": "row wrap", "align_items": "center"}
KEYS = deferred("Keys: on a control, arrows and letters work the explorer; Ctrl+S still saves and "
                "Shift+Enter still runs the cell; Esc gives every key back to the notebook.")
PENDING = deferred("running the loop with max_turns = {max_turns}…")  # the view while a run is made
SNAPSHOT = deferred("A snapshot: run this cell to get the controls (scenario, max_turns, budget, "
                    "deny rules, step through the run).")


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

    @property
    def base(self) -> str:
        """The setting but max_turns, as the page names it: its runs for each max_turns are
        "<base>/<max_turns>"."""
        return json.dumps([self.scenario, self.max_budget_usd, list(self.deny)])

    @property
    def key(self) -> str:
        return f"{self.base}/{self.max_turns}"


def own_rules(scenario: str) -> list[str]:
    """The deny rules the scenario's own gate has (on until toggled off)."""
    gate = SCENARIOS[scenario].gate
    return list(gate.deny) if gate else []


def deny_rules(scenario: str) -> list[str]:
    """The deny rules offered for a scenario: its own, each of its tools, the pattern rules that
    apply."""
    names = list(SCENARIOS[scenario].tools().tools)
    offered = own_rules(scenario) + names + [r for r in PATTERN_RULES if r.split("(")[0] in names]
    return list(dict.fromkeys(offered))


def run_frames(setting: Setting, student: StudentLoop | None = None, pause=None) -> list[Frame]:
    """Run the scenario once under `setting`, in-process, and keep every frame: the reference loop,
    or `student`'s; `pause()`, if given, is called between the run's steps."""
    sc = SCENARIOS[setting.scenario]
    if student is not None:
        return student.frames(sc, setting.max_turns, setting.max_budget_usd, setting.deny,
                              pause=pause)
    # the scenario's gate, with the chosen deny rules
    gate = replace(sc.gate or Gate(), deny=list(setting.deny))
    events = sc.agent(limits=setting.limits, gate=gate).events(sc.prompt)
    return frames(events if pause is None else paced(events, pause))


def paced(events, pause):
    """The events of a run, with `pause()` before each next one is made."""
    for event in events:
        yield event
        pause()


class RunAhead:
    """The runs of one explorer: kept once made, and made ahead, one at a time on one background
    thread, for the settings a learner may pick next. A run ahead steps aside for the learner:
    before each model call and tool it waits until no control has moved for QUIET_S; a setting asked
    for before its run ahead has started is run at once in the foreground, and one asked for while
    it runs is waited for without pauses."""

    def __init__(self, run, made=None):
        self.run = run  # run(setting, pause=...) -> frames; pause is None in the foreground
        # made(setting, frames), if given: called on the background thread as each run ahead is kept
        self.made = made
        self.kept: dict[Setting, list[Frame]] = {}
        self.wanted: list[Setting] = []  # to run ahead, first first
        self.running: Setting | None = None  # the run ahead under way
        self.hurry = threading.Event()  # set while the foreground waits for the run under way
        self.moved = 0.0  # time.monotonic() when a control last moved
        self.lock = threading.Condition()
        self.thread: threading.Thread | None = None

    def frames(self, setting: Setting) -> list[Frame]:
        """The frames of `setting`: kept, waited for, or run now."""
        with self.lock:
            if setting in self.wanted:
                self.wanted.remove(setting)
            if self.running == setting:
                self.hurry.set()
                self.lock.wait_for(lambda: self.running != setting)
                self.hurry.clear()
        if setting not in self.kept:
            self.kept[setting] = self.run(setting, pause=None)
        return self.kept[setting]

    def want(self, settings: list[Setting]) -> None:
        """Run these ahead, in this order, instead of those wanted before."""
        with self.lock:
            self.wanted = [s for s in settings if s not in self.kept and s != self.running]
            if self.wanted and self.thread is None:
                # in the learner's context: the language it speaks (course.i18n.speaking)
                self.thread = threading.Thread(target=contextvars.copy_context().run,
                                               args=(self.work,),
                                               name="explorer-run-ahead", daemon=True)
                self.thread.start()

    def moving(self) -> None:
        """A control has just moved: runs ahead wait."""
        self.moved = time.monotonic()

    def pause(self) -> None:
        """Called by a run ahead before each step: wait until the controls have been still for
        QUIET_S."""
        while (left := self.moved + QUIET_S - time.monotonic()) > 0 and not self.hurry.wait(left):
            pass

    def work(self) -> None:
        while True:
            with self.lock:
                if not self.wanted:
                    self.thread = None
                    return
                setting = self.running = self.wanted.pop(0)
            self.pause()
            try:
                frames = self.run(setting, pause=self.pause)
            except Exception:
                # left to the foreground, which runs it again and shows what went wrong
                frames = None
            with self.lock:
                if frames is not None:
                    self.kept[setting] = frames
                self.running = None
                self.lock.notify_all()
            if frames is not None and self.made is not None:
                self.made(setting, frames)

    def join(self) -> None:
        """Wait until every run wanted ahead is made."""
        thread = self.thread
        while thread is not None:
            thread.join()
            thread = self.thread


def budget_scale(spent: float) -> float:
    """A round slider maximum at or above `spent`: 1, 2 or 5 times a power of ten."""
    power = 10.0 ** math.floor(math.log10(spent)) if spent > 0 else 1e-4
    return next(k * power for k in (1, 2, 5, 10) if k * power >= spent)


def button(description: str, tooltip: str, icon: str = "") -> w.Button:
    return w.Button(description=description, tooltip=tooltip, icon=icon,
                    layout=w.Layout(**NO_SHRINK))


class Explorer:
    """An interactive view of a loop on the course's scenarios: the reference loop, or `loop`, a
    function with the agent_loop contract. The student's loop gets max_turns always, and
    `max_budget_usd` (the budget slider) and `gate` (a course.gate.Gate with the deny rules toggled
    on) only if its signature takes them."""

    def __init__(self, scenario: str = "aurora_run", *, max_turns: int = 10,
                 max_budget_usd: float | None = None, deny: list[str] | None = None, loop=None):
        """`deny` None keeps the scenario's own deny rules; a list replaces them."""
        self.student = StudentLoop(loop) if loop is not None else None
        self.runs = RunAhead(partial(run_frames, student=self.student), made=self.send)
        self.quiet = False  # True while several controls change together
        # what the next step announced starts with: the new outcome, after a setting changed
        self.news = ""
        # the setting and step of the frame on screen, while the kernel draws it
        self.shown: tuple | None = None
        wide = {"description_width": "initial"}
        self.scenario = w.Dropdown(
            options=[(f"{n}: {tr(s.title)}", n) for n, s in SCENARIOS.items()], value=scenario,
            description=tr("scenario"), style=wide,
            layout=w.Layout(width="calc(100% - 8px)", max_width="720px"))
        self.max_turns = w.IntSlider(value=max_turns, min=MAX_TURNS_RANGE[0],
                                     max=MAX_TURNS_RANGE[1], style=wide,
                                     description="max_turns", continuous_update=False,
                                     tooltip=tr("the cap T on tool-use turns: at most T+1 model "
                                                "calls"))
        self.budget = w.FloatSlider(value=0.0, min=0.0, description=tr("budget"),
                                    readout_format="$.6f", style=wide, continuous_update=False,
                                    tooltip=tr("max_budget_usd, checked after each response; 0: no "
                                               "limit"),
                                    disabled=not self.applies("budget"))
        self.rules = w.HBox(layout=w.Layout(**WRAP))
        # the timer only
        self.play = w.Play(value=0, min=0, max=0, interval=700, layout=w.Layout(display="none"))
        self.playing = w.ToggleButton(description=tr("play / pause"), icon="play",
                                      tooltip=tr("play the run step by step; press again to pause "
                                                 "where it is"),
                                      layout=w.Layout(**NO_SHRINK))
        self.first = button(tr("first"), tr("go to step 0: the prompt is sent"), "fast-backward")
        self.back = button(tr("back"), tr("one step back"), "step-backward")
        self.next = button(tr("next"), tr("one step forward"), "step-forward")
        self.last = button(tr("last"), tr("go to the last step: how the run ended"), "fast-forward")
        self.step = w.IntSlider(value=0, min=0, max=0, description=tr("step"), style=wide,
                                tooltip=tr("the step shown"))
        self.outcome_label = w.HTML(layout=w.Layout(**NO_SHRINK))
        self.view = w.HTML().add_class("course-view")
        self.show_rules(own_rules(scenario) if deny is None else deny)
        self.scale_budget(max_budget_usd)
        # while a run is made
        running = tr("outcome of the run: {outcome}").format(outcome=outcome_tag(None))
        self.access = Access(step=self.step, max_turns=self.max_turns, view=self.view,
                             outcome=self.outcome_label,
                             pending='<div class="course-pending" '
                                     f'style="{FONT};{LINE}">{esc(tr(PENDING))}</div>',
                             pending_outcome='<span '
                                             f'style="{FONT};{LINE};white-space:nowrap">{running}</'
                                             'span>',
                             # the page starts from the run the kernel draws
                             base=self.setting.base,
                             settings=self.setting_controls)
        self.access.on_msg(lambda _, content, buffers: self.on_page(content))
        no_limit, deny_label = tr("(budget 0 = no limit)"), tr("deny:")
        self.ui = w.VBox([
            self.scenario, self.outcome_label, w.HTML(self.loop_note()),
            w.HBox([self.max_turns, self.budget,
                    w.HTML(f'<span style="{FONT}">{esc(no_limit)}</span>')],
                   layout=w.Layout(**WRAP)),
            w.HBox([w.HTML(f'<span style="{FONT}">{esc(deny_label)}</span>',
                           layout=w.Layout(**NO_SHRINK)),
                    self.rules],
                   layout=w.Layout(**WRAP)),
            w.HBox([self.first, self.back, self.playing, self.next, self.last, self.step,
                    self.play],
                   layout=w.Layout(**WRAP)),
            w.HTML('<div class="course-keys" '
                   f'style="{FONT};{LINE};color:{ink(MUTED)}">{esc(tr(KEYS))}</div>'),
            self.view, self.access,
        ]).add_class("course-explorer")
        self.scenario.observe(self.on_scenario, "value")
        for control in (self.max_turns, self.budget):
            control.observe(self.on_setting, "value")
        self.step.observe(self.on_step, "value")
        # The timer moves the step; the step reaches the timer only when play starts, not on every
        # key (a message)
        self.play.observe(lambda change: self.go(change["new"]), "value")
        self.playing.observe(self.on_playing, "value")
        # stopped at the end
        self.play.observe(lambda change: setattr(self.playing, "value", change["new"]), "playing")
        moves = {self.first: lambda: 0, self.back: lambda: self.step.value - 1,
                 self.next: lambda: self.step.value + 1, self.last: lambda: self.step.max}
        for b, where in moves.items():
            b.on_click(lambda _, where=where: self.go(where()))
        self.update()

    # --- the loop that runs
    # -----------------------------------------------------------------------------
    def applies(self, feature: str) -> bool:
        """Whether a control (budget, gate) reaches the loop: always for the reference loop."""
        return self.student is None or feature in self.student.accepts

    def loop_note(self) -> str:
        """Which loop runs, and which controls it takes."""
        if self.student is None:
            note = tr("loop: course.loop.Agent (the reference loop)")
            return f'<div style="{FONT};{LINE}">{esc(note)}</div>'
        name = self.student.name
        missing = [tr("{feature} ({name} takes no {keyword}=)").format(
            feature=f, name=name, keyword=FEATURES[f])
                   for f in FEATURES if not self.applies(f)]
        note = (
            tr("loop: your {name}, read from the wire; not applied: {missing}").format(
                name=name, missing=", ".join(missing)
            )
            if missing
            else tr("loop: your {name}, read from the wire; every control applies").format(
                name=name
            )
        )
        return f'<div style="{FONT};{LINE}">{esc(note)}</div>'

    # --- state
    # ----------------------------------------------------------------------------------------
    @property
    def setting(self) -> Setting:
        denied = (
            tuple(b.description for b in self.rules.children if b.value)
            if self.applies("gate")
            else ()
        )
        budget = (self.budget.value or None) if self.applies("budget") else None
        return Setting(self.scenario.value, self.max_turns.value, budget, denied)

    def run(self, setting: Setting) -> list[Frame]:
        """The frames of a setting, run on first use only (or waited for, when it runs ahead)."""
        return self.runs.frames(setting)

    def run_ahead(self) -> None:
        """Run, in the background, every other max_turns under the current setting, nearest
        first."""
        now = self.max_turns.value
        turns = sorted(range(MAX_TURNS_RANGE[0], MAX_TURNS_RANGE[1] + 1),
                       key=lambda t: abs(t - now))
        self.runs.want([replace(self.setting, max_turns=t) for t in turns])

    @property
    def frames(self) -> list[Frame]:
        return self.run(self.setting)

    @property
    def frame(self) -> Frame:
        return self.frames[self.step.value]

    @property
    def outcome(self) -> str | None:
        """The result subtype of the run under the current setting."""
        return self.frames[-1].outcome

    def set(self, scenario: str | None = None, *, max_turns: int | None = None,
            max_budget_usd: float | EllipsisType | None = ..., deny: list[str] | None = None,
            step: int | None = None) -> Explorer:
        """Change controls from code, as a learner would, with one re-run; the view shows the last
        frame or `step`."""
        before = self.setting
        self.quiet = True
        try:
            if scenario is not None:
                self.scenario.value = scenario
            if max_turns is not None:
                self.max_turns.value = max_turns
            if max_budget_usd is not ...:
                self.scale_budget(max_budget_usd)
            if deny is not None:
                for b in self.rules.children:
                    b.value = b.description in deny
        finally:
            self.quiet = False
        if self.setting != before:
            self.update()
        elif self.access.live:  # a control may have moved, to no effect: the page stops waiting
            self.access.name(self.setting.base)
        if step is not None:
            self.step.value = step
        return self

    def go(self, step: int) -> None:
        """Show `step`, kept within the run."""
        self.step.value = min(max(step, 0), self.step.max)

    # --- reacting to the controls
    # -----------------------------------------------------------------------
    def show_rules(self, denied=()) -> None:
        tip = tr("deny {rule}") if self.applies("gate") else tr("deny {rule} (not applied: your "
                                                                "loop takes no gate)")
        buttons = [w.ToggleButton(value=r in denied, description=r, tooltip=tip.format(rule=r),
                                  icon="ban" if r in denied
                                  else "", disabled=not self.applies("gate"),
                                  layout=w.Layout(**NO_SHRINK))
                   for r in deny_rules(self.scenario.value)]
        for b in buttons:
            b.add_class("course-deny")
            b.observe(self.on_rule, "value")
        self.rules.children = buttons

    def scale_budget(self, value: float | None = None) -> None:
        """Fit the budget slider to what the scenario costs without a budget, and set it (0: no
        limit)."""
        top = budget_scale(self.run(replace(self.setting, max_budget_usd=None))[-1].spent)
        with self.budget.hold_trait_notifications():
            self.budget.max = max(top, value or 0.0)
            self.budget.step = self.budget.max / BUDGET_STEPS
            self.budget.value = value or 0.0

    @property
    def setting_controls(self) -> list[w.Widget]:
        """The controls of the setting but max_turns."""
        return [self.scenario, self.budget, *self.rules.children]

    def on_scenario(self, change) -> None:
        # one update for the new scenario, not one per control it resets
        quiet, self.quiet = self.quiet, True
        try:
            self.show_rules(own_rules(change["new"]))
            self.access.settings = self.setting_controls
            self.scale_budget()
        finally:
            self.quiet = quiet
        self.on_setting(change)

    def on_rule(self, change) -> None:
        # denied shows a sign, not only a darker colour
        change["owner"].icon = "ban" if change["new"] else ""
        self.on_setting(change)

    def on_setting(self, change) -> None:
        if not self.quiet:
            self.update()
            self.run_ahead()  # a learner is moving controls: the neighbours are likely next

    def on_playing(self, change) -> None:
        """Play from the step shown, or pause where it is."""
        # one message: the timer starts from this step, and ends at the run's last
        with self.play.hold_sync():
            if change["new"]:
                self.play.max, self.play.value = self.step.max, self.step.value
            self.play.playing = change["new"]

    def on_step(self, change) -> None:
        self.render()
        self.runs.moving()  # runs ahead wait a little longer: the learner may press the next key

    def on_page(self, content: dict) -> None:
        """A page shows the explorer (`ready`): it gets the runs made for the current setting, then
        each as it is made, and shows the frames from now on."""
        if content.get("ready"):
            self.access.ready()
            self.send_kept()

    def send_kept(self) -> None:
        """Send the page the runs kept for every max_turns of the current setting (the current run
        first)."""
        now = self.setting
        self.send(now, self.frames)
        for setting, run in list(self.runs.kept.items()):
            if setting.base == now.base:
                self.send(setting, run)

    def send(self, setting: Setting, run: list[Frame]) -> None:
        """Send the page run `run` of `setting`, if it shows the explorer and lacks it."""
        if not self.access.live or setting.key in self.access.sent:
            return
        total, limits = len(run), setting.limits
        said = [step_line(frame, step, total) for step, frame in enumerate(run)]
        label, news = self.outcome_line(run[-1])
        self.access.send_run(setting.key, [frame_parts(frame, limits, step, total) for step,
                                           frame in enumerate(run)],
                             said, label,
                             tr("{outcome}. {step}").format(outcome=news, step=said[-1]))

    def outcome_line(self, final: Frame) -> tuple[str, str]:
        """How a run ended, for the outcome line above the controls (HTML), and in words (what is
        announced)."""
        line = tr("outcome of the run: {outcome} after {calls}, {turns}")
        calls, turns = n_calls(final.calls), n_turns(final.turns)
        shown = line.format(outcome=outcome_tag(final.outcome), calls=esc(calls), turns=esc(turns))
        return (f'<span style="{FONT};{LINE};white-space:nowrap">{shown}</span>',
                line.format(outcome=final.outcome, calls=calls, turns=turns))

    def update(self) -> None:
        """Run (or fetch) the current setting and show its last frame, then its outcome and the step
        slider; with a page, send it the run (the page shows it) and the others kept for the
        setting."""
        self.runs.moving()
        run = self.frames
        if self.access.live:
            # the runs before the setting's name: the page shows the run once it has both
            self.send_kept()
            self.access.name(self.setting.base)
            return
        self.access.base = self.setting.base
        last = len(run) - 1
        label, self.news = self.outcome_line(run[-1])
        self.render(last)  # first: the frame is what the learner waits for
        self.outcome_label.value = self.access.classed(label)
        # The range goes to the front end before the value, in a message of its own: a slider given
        # both at once may take the value first, clamp it to the old range and send that back (the
        # view would jump to it).
        self.step.max = self.play.max = last
        self.step.value = last  # already shown: the step observer does nothing

    def render(self, step: int | None = None) -> None:
        """Show frame `step` (by default the step slider's)."""
        step = self.step.value if step is None else step
        # the page shows it; or already on screen
        if self.access.live or (self.setting, step) == self.shown:
            return
        self.shown = (self.setting, step)
        frames = self.frames
        frame, total = frames[step], len(frames)
        self.view.value = self.access.classed(frame_html(frame, self.setting.limits, step, total))
        said = step_line(frame, step, total)
        # the new outcome first, once, after a setting changed
        self.access.announce = (
            tr("{outcome}. {step}").format(outcome=self.news, step=said) if self.news else said
        )
        self.news = ""

    # --- static output
    # ------------------------------------------------------------------------------------
    def html(self) -> str:
        """A snapshot of the explorer's state, for outputs without a front end."""
        s, f = self.setting, self.frame
        budget = tr("none") if s.max_budget_usd is None else dollars(s.max_budget_usd)
        state = tr("scenario {scenario} · max_turns {max_turns} · max_budget_usd {budget} · deny: "
                   "{deny}").format(
            scenario=s.scenario, max_turns=s.max_turns, budget=budget,
            deny=", ".join(s.deny) or tr("nothing"))
        title, hint = tr("Loop explorer"), tr(SNAPSHOT)
        head = f"<div><b>{esc(title)}</b> · {esc(state)}</div><div><i>{esc(hint)}</i></div>"
        return ('<div '
                f'style="{FONT};{LINE}">{head}'
                f'{frame_html(f, s.limits, self.step.value, len(self.frames))}</div>')

    def __repr__(self) -> str:
        s, final = self.setting, self.frames[-1]
        loop = f", loop={self.student.name}" if self.student else ""
        return (f"Explorer(scenario={s.scenario!r}, max_turns={s.max_turns}, "
                f"max_budget_usd={s.max_budget_usd}, deny={list(s.deny)}{loop}): " + tr(
                    "{outcome} after {calls}, {turns}; step {step}/{last}").format(
                    outcome=final.outcome, calls=n_calls(final.calls), turns=n_turns(final.turns),
                    step=self.step.value, last=len(self.frames) - 1))

    def _repr_mimebundle_(self, **kwargs) -> dict:
        """The live widget where a front end is, else the HTML snapshot; text/plain is
        deterministic."""
        return {**self.ui._repr_mimebundle_(**kwargs), "text/plain": repr(self),
                "text/html": self.html()}
