"""Explorer benchmark: how long the loop explorer takes to answer a change.

In a real browser (JupyterLab in headless Chromium at 1024 px, the file browser open,
driven by Playwright), for every scenario and two loops, the reference loop and a
lesson-03 loop of a student's (`Explorer(loop=agent_loop)`): pick the scenario, which
sets the explorer running the other max_turns settings ahead in the background; while
it does, press keys on the step slider (each a redraw), then on the max_turns slider
(10 down to 1: each a run not made before, unless the explorer ran it ahead; then back
up to 10: runs already kept). A key is pressed PACE_S after the last change showed, as
a learner reads the view (the explorer runs ahead in these gaps). A change is timed in
the page from the key's keydown to the first animation frame after the frame view's
DOM changed to a frame (not to "running the loop...", which the explorer shows while a
run is made): p50 and p95 per scenario and loop, and over all the changes of a loop. Scenario by
scenario, each loop in turn (the first every other scenario), and after each, keys on a plain
ipywidgets slider driving an HTML widget are timed the same way: the explorer's p95 over the plain
slider's is what the explorer adds to the widget round trip, a ratio that holds on a loaded
machine, as the three see the same load (issue 30: at most RATIO_TARGET).

Without a front end, for every scenario (the kernel's share of a change):

- re-run: move the max_turns slider to a setting not run before (the stored runs
  are dropped first), which runs the scenario through `Agent.events()` on the
  in-process local API and redraws the last frame;
- revisit: move max_turns back to a setting already run, which only redraws;
- step: move the step slider, which only redraws a stored frame.

Times are medians and maxima over repetitions (the first, which warms caches,
is dropped). The target is 100 ms per change (issue 7 asks 150 ms with the student's loop).
"""
from __future__ import annotations

import gc
import json
import math
import re
import statistics
import tempfile
import time
from pathlib import Path

from course.scenarios import SCENARIOS
from course.viz.explorer import Explorer

from .jupyter_lab import CHROMIUM, CHROMIUM_ARGS, JupyterLab

TARGET_MS = 100.0
STUDENT_TARGET_MS = 150.0  # issue 7's target with the student's loop
# A student's loop as lesson 03 ends (decided by stop_reason; tool failures become is_error
# results).
STUDENT_LOOP = '''def agent_loop(client, model, tools, run_tool, prompt, *, max_turns=10, max_tokens=1024):
    messages = [{"role": "user", "content": prompt}]
    for turn in range(max_turns + 1):
        response = client.messages.create(model=model, max_tokens=max_tokens, tools=tools, messages=messages)
        reply = {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in response.content]}
        if response.stop_reason in ("end_turn", "stop_sequence"):
            return "".join(b.text for b in response.content if b.type == "text"), messages + [reply]
        if response.stop_reason != "tool_use" or turn == max_turns:
            return None, messages
        results = []
        for b in (b for b in response.content if b.type == "tool_use"):
            try:
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": run_tool(b.name, b.input)})
            except Exception as error:
                results.append({"type": "tool_result", "tool_use_id": b.id, "content": f"Error: {error}",
                                "is_error": True})
        messages = messages + [reply, {"role": "user", "content": results}]
'''  # noqa: E501
# The baseline: a plain ipywidgets slider driving an HTML widget, the widget round trip with no
# explorer around it.
PLAIN = '''import ipywidgets as w
plain_view = w.HTML("<b>value 0</b>").add_class("course-view")
plain = w.IntSlider(value=0, min=0, max=15, description="plain")
plain.observe(lambda change: setattr(plain_view, "value", f"<b>value {change['new']}</b>"), "value")
w.VBox([plain, plain_view]).add_class("course-plain")'''
# after each scenario of each loop: from 0 and back, each a change
PLAIN_KEYS = ["ArrowRight"] * 6 + ["ArrowLeft"] * 6
RATIO_TARGET = 1.2  # the explorer's p95 over the plain slider's, measured in the same run
# the explorers start on the last scenario, so that every scenario is picked
FIRST = list(SCENARIOS)[-1]
# a cell each
LOOPS = {"reference": f"Explorer({FIRST!r})", "student": f"Explorer({FIRST!r}, loop=agent_loop)"}
STEP_KEYS = 8  # step-slider presses per scenario
CHANGE_S = 20  # a change not seen within this long is a failure
MAX_TURNS = (1, 2, 3, 10)  # the settings each repetition moves through
REPEATS = 5
WIDTH = 1024  # the browser window, px: a laptop, with the file browser open
PACE_S = 0.2  # from a change shown to the next key press


def timed(change) -> float:
    """Milliseconds for one change of the explorer."""
    started = time.perf_counter()
    change()
    return (time.perf_counter() - started) * 1000


def bench_scenario(name: str, repeats: int = REPEATS) -> dict:
    explorer = Explorer(name, max_turns=MAX_TURNS[-1])
    rerun, revisit, step = [], [], []
    for rep in range(repeats + 1):
        gc.collect()  # once per repetition: a full collection takes longer than a change
        for turns in MAX_TURNS:
            explorer.runs.kept.clear()  # force a re-run, as for a setting never seen
            ms = timed(lambda turns=turns: explorer.set(max_turns=turns))
            frames = len(explorer.frames)
            # as the slider does
            steps = [timed(lambda k=k: setattr(explorer.step, "value", k)) for k in range(frames)]
            if rep:  # the first repetition warms caches
                rerun.append(ms)
                step.extend(steps)
        if rep:
            for turns in MAX_TURNS:
                explorer.set(max_turns=turns)  # every setting run once more, and kept
            revisit += [timed(lambda turns=turns: explorer.set(max_turns=turns))
                        for turns in MAX_TURNS[-2::-1] + MAX_TURNS[-1:]]
    return {
        "rerun_median_ms": statistics.median(rerun),
        "rerun_max_ms": max(rerun),
        "revisit_median_ms": statistics.median(revisit),
        "step_median_ms": statistics.median(step),
        "step_max_ms": max(step),
    }


# In the page: a keydown starts a change; the first animation frame after a frame view's DOM changed
# to a frame ends it (an explorer's "running the loop..." while a run is made is no frame: the
# change goes on).
TIMER_JS = """() => {
    const lat = window.courseLatency = {start: null, samples: [], changes: 0};
    document.addEventListener('keydown', () => { lat.start = performance.now(); }, true);
    const seen = new MutationObserver((mutations) => {
        const node = mutations[0].target;
        const view = (node.nodeType === 1 ? node : node.parentElement).closest('.course-view');
        if (view.closest('.course-explorer') && !view.querySelector('.course-frame')) return;
        lat.changes += 1;
        if (lat.start === null) return;
        const start = lat.start;
        lat.start = null;
        requestAnimationFrame(() => lat.samples.push(performance.now() - start));
    });
    for (const view of document.querySelectorAll('.course-explorer .course-view, .course-plain .course-view'))
        seen.observe(view, {childList: true, subtree: true, characterData: true});
}"""  # noqa: E501


def notebook(path: Path) -> Path:
    """A notebook with one explorer per loop, then the plain slider."""
    cells = (
        [STUDENT_LOOP + "\nfrom course.viz.explorer import Explorer"]
        + list(LOOPS.values())
        + [PLAIN]
    )
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                           "language": "python"}},
          "cells": [{"cell_type": "code", "id": f"cell{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": source} for i, source in enumerate(cells)]}
    path.write_text(json.dumps(nb))
    return path


def percentile(samples: list[float], q: float) -> float:
    """The nearest-rank percentile."""
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def timed_presses(page, handle, keys: list[str]) -> tuple[list[float], int]:
    """Press each key on a slider's handle and wait for the view to change: (ms per change, changes
    not seen)."""
    samples, missed = [], 0
    for key in keys:
        before = page.evaluate("() => window.courseLatency.samples.length")
        handle.press(key)
        try:
            page.wait_for_function(f"() => window.courseLatency.samples.length > {before}",
                                   timeout=CHANGE_S * 1000)
            samples.append(page.evaluate("() => window.courseLatency.samples.at(-1)"))
        except Exception:  # playwright's TimeoutError: the view never changed
            missed += 1
            page.evaluate("() => { window.courseLatency.start = null; }")
        page.wait_for_timeout(PACE_S * 1000)
    return samples, missed


def bench_in_browser(page, explorer, name: str) -> dict:
    """Pick scenario `name` in one explorer, then time step and max_turns key presses."""
    # the loops take turns: JupyterLab skips drawing a cell out of view
    explorer.scroll_into_view_if_needed()
    choice = explorer.locator("select")
    label = next(
        o for o in choice.locator("option").all_text_contents() if o.startswith(f"{name}:")
    )
    if choice.evaluate("s => s.options[s.selectedIndex].text") != label:
        changes = page.evaluate("() => window.courseLatency.changes")
        choice.select_option(label=label)
        page.wait_for_function(f"() => window.courseLatency.changes > {changes}",
                               timeout=CHANGE_S * 1000)
    step = explorer.locator(".widget-slider", has=page.locator("label", has_text="step"))
    handle = step.locator(".noUi-handle")
    # "step 6 / 6: ...", the new run's last
    shown = explorer.locator(".course-frame > div").first.inner_text()
    # a key past the last step changes nothing
    last = int(re.match(r"\D*(\d+) / (\d+)", shown).group(2))
    page.wait_for_function("([h, last]) => parseFloat(h.getAttribute('aria-valuemax')) === last",
                           # the slider follows the view
                           arg=[handle.element_handle(), last], timeout=CHANGE_S * 1000)
    steps, missed_steps = timed_presses(page, handle,
                                        ["Home"] + ["ArrowRight"] * min(STEP_KEYS, last))
    max_turns = explorer.locator(".widget-slider", has=page.locator("label", has_text="max_turns"))
    runs, missed = timed_presses(page, max_turns.locator(".noUi-handle"),
                                 ["ArrowLeft"] * 9 + ["ArrowRight"] * 9)
    samples = runs + steps
    return {"changes": len(samples), "step_changes": len(steps), "missed": missed + missed_steps,
            "p50_ms": percentile(samples, 50),
            "p95_ms": percentile(samples, 95), "max_turns_p95_ms": percentile(runs, 95),
            "step_p95_ms": percentile(steps, 95), "samples": samples}


def overall(rows: dict) -> dict:
    """p50 and p95 over every change of one loop, all scenarios together."""
    samples = [ms for r in rows.values() for ms in r["samples"]]
    return {"changes": len(samples), "p50_ms": percentile(samples, 50),
            "p95_ms": percentile(samples, 95)}


def bench_plain(page, plain) -> list[float]:
    """Key presses on the plain slider: ms per change."""
    samples, missed = timed_presses(page, plain.locator(".noUi-handle"), PLAIN_KEYS)
    if missed:
        raise RuntimeError(f"the plain slider's view missed {missed} changes")
    return samples


def bench_browser() -> dict:
    """Per loop and scenario: p50 and p95 of a change, seen in Chromium; after each, the plain
    slider's changes."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        folder = Path(tmp, "root")
        folder.mkdir()
        notebook(folder / "explorer.ipynb")
        with JupyterLab(folder, Path(tmp)) as lab:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": WIDTH, "height": 1000})
                page.set_default_timeout(180_000)
                page.goto(lab.url("explorer.ipynb"))
                page.wait_for_selector(".jp-Notebook .jp-Cell")
                page.wait_for_function("() => window.jupyterapp && "
                                       "window.jupyterapp.shell.currentWidget"
                                       " && window.jupyterapp.shell.currentWidget.sessionContext")
                page.evaluate("async () => { const panel = window.jupyterapp.shell.currentWidget;"
                              " await panel.context.ready; await panel.sessionContext.ready;"
                              " await "
                              "window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
                # as a student works
                page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
                explorers = page.locator(".course-explorer")
                explorers.nth(len(LOOPS) - 1).locator(".course-frame").wait_for()
                page.locator(".course-plain .course-view").wait_for()
                page.evaluate(TIMER_JS)
                plain, figures = [], {loop: {} for loop in LOOPS}
                # interleaved: the loops and the plain slider see the same load
                for k, name in enumerate(SCENARIOS):
                    # each loop first every other scenario
                    for loop in list(LOOPS)[::1 if k % 2 == 0 else -1]:
                        figures[loop][name] = bench_in_browser(
                            page, explorers.nth(list(LOOPS).index(loop)), name)
                        plain += bench_plain(page, page.locator(".course-plain"))
                figures = {
                    loop: {name: figures[loop][name] for name in SCENARIOS} for loop in LOOPS
                }
                figures["plain"] = {"changes": len(plain), "p50_ms": percentile(plain, 50),
                                    "p95_ms": percentile(plain, 95), "samples": plain}
                return figures
            finally:
                browser.close()


def bench_explorer(repeats: int = REPEATS, *, in_browser: bool = True,
                   names: tuple[str, ...] = tuple(SCENARIOS)) -> dict:
    """In Chromium: p50 and p95 of a change per loop and scenario; in the kernel: re-run, revisit
    and step times, for the scenarios `names` (a smoke test times one)."""
    browser = bench_browser() if in_browser and Path(CHROMIUM).exists() else None
    scenarios = {name: bench_scenario(name, repeats) for name in names}
    slow = sorted(n for n, r in scenarios.items() if r["rerun_median_ms"] > TARGET_MS)
    targets = {}
    if browser is not None:
        for loop in LOOPS:
            ratio = overall(browser[loop])["p95_ms"] / browser["plain"]["p95_ms"]
            targets[f"in Chromium, {loop} loop: p95 over a plain ipywidgets slider's p95, same "
                    f"run: {ratio:.2f}x <= {RATIO_TARGET:g}x"] = ratio <= RATIO_TARGET
        for loop in LOOPS:
            every = overall(browser[loop])
            targets[
                f"in Chromium at {WIDTH} px, {loop} loop: p95 over all {every['changes']} "
                f"changes {every['p95_ms']:.0f} ms <= {TARGET_MS:g} ms"
            ] = every["p95_ms"] <= TARGET_MS
        for loop, limit in (("reference", TARGET_MS), ("student", TARGET_MS),
                            ("student", STUDENT_TARGET_MS)):
            over = [n for n, r in browser[loop].items() if r["p95_ms"] > limit or r["missed"]]
            targets[f"in Chromium, {loop} loop: p95 <= {limit:g} ms for every scenario"
                    + (f" (over: {', '.join(over)})" if over else "")] = not over
    targets[f"kernel: re-run + re-render median <= {TARGET_MS:g} ms for every scenario"] = not slow
    targets[f"kernel: step re-render <= {TARGET_MS:g} ms for every scenario"] = all(
        r["step_max_ms"] <= TARGET_MS for r in scenarios.values())
    return {"target_ms": TARGET_MS, "max_turns": list(MAX_TURNS), "repeats": repeats,
            "browser": browser, "scenarios": scenarios, "over_target": slow, "targets": targets}


def table(figures: dict) -> str:
    """The figures as Markdown tables: the browser's, then the kernel's."""
    lines = []
    if figures.get("browser"):
        b = figures["browser"]
        lines += ["In Chromium, key press to view changed (ms; changes timed per scenario and "
                  "loop, none missed unless said):", "",
                  "| scenario | reference p50 | reference p95 | student p50 | student p95 | "
                  "student max_turns p95 | student step p95 | changes |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for name, r in b["reference"].items():
            s = b["student"][name]
            missed = f" ({r['missed'] + s['missed']} missed)" if r["missed"] + s["missed"] else ""
            lines.append(f"| {name} | {r['p50_ms']:.0f} | {r['p95_ms']:.0f} | {s['p50_ms']:.0f} | "
                         f"{s['p95_ms']:.0f} | {s['max_turns_p95_ms']:.0f} | "
                         f"{s['step_p95_ms']:.0f} | {r['changes']} + {s['changes']}{missed} |")
        for loop in LOOPS:
            every = overall(b[loop])
            lines.append(f"| **every scenario, {loop} loop** | p50 {every['p50_ms']:.0f} | p95 "
                         f"{every['p95_ms']:.0f} | | | | | {every['changes']} |")
        plain = b["plain"]
        lines.append("| **plain ipywidgets slider driving an HTML widget** | p50 "
                     f"{plain['p50_ms']:.0f} | p95 {plain['p95_ms']:.0f} | | | | | "
                     f"{plain['changes']} |")
        lines += ["", "The explorer over the plain slider, same run (p95 / p95; step and max_turns "
                      "keys apart):", "",
                  "| loop | every change | step slider | max_turns slider |",
                  "|---|---:|---:|---:|"]
        for loop in LOOPS:
            steps = [ms for r in b[loop].values()
                     for ms in r["samples"][len(r["samples"]) - r["step_changes"]:]]
            runs = [ms for r in b[loop].values()
                    for ms in r["samples"][:len(r["samples"]) - r["step_changes"]]]
            lines.append(f"| {loop} | {overall(b[loop])['p95_ms'] / plain['p95_ms']:.2f}x | "
                         f"{percentile(steps, 95) / plain['p95_ms']:.2f}x | "
                         f"{percentile(runs, 95) / plain['p95_ms']:.2f}x |")
        lines += ["", "In the kernel, without a front end (reference loop):", ""]
    lines += ["| scenario | re-run median ms | re-run max ms | revisit median ms | step median ms "
              "| step max ms |",
              "|---|---:|---:|---:|---:|---:|"]
    for name, r in figures["scenarios"].items():
        lines.append(f"| {name} | {r['rerun_median_ms']:.1f} | {r['rerun_max_ms']:.1f} | "
                     f"{r['revisit_median_ms']:.2f} | {r['step_median_ms']:.2f} | "
                     f"{r['step_max_ms']:.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    result = bench_explorer()
    print(table(result))
    for target, met in result["targets"].items():
        print(f"{'met' if met else 'NOT met'}: {target}")
