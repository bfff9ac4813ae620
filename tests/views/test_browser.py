"""The views as a student sees them: JupyterLab in headless Debian Chromium, driven by Playwright.

One JupyterLab (bench/jupyter_lab.py, with the course's jupyter/overrides.json) and one Chromium
serve the module. The JupyterLab serves copies of notebooks/04_termination.ipynb (lesson 07, for its
plots; the Japanese lesson 04): the tests run the lesson, use the explorer's controls, measure the
layout at 1024 px with the file browser open, and reopen that run lesson saved (under another name:
no kernel has its widgets, as after a restart). It also serves small notebooks of explorers and
lesson 03 as committed, for what needs no executed lesson: the step slider after max_turns changes,
the save and run shortcuts, names and Tab stops, the badges' and texts' contrast in the light and
dark themes, and code lines wrapped at 1024 px. A notebook is opened (and run) once, by the first
test that needs it, and kept open for the others (`pages`). Nothing waits a fixed time: a test waits
for what it needs to see, and `settled` for the kernel to have answered every message in flight.
Screenshots of each view, at 1024 px and 1400 px, go to build/browser/.
"""
from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest

from bench.explorer import STUDENT_LOOP
from bench.jupyter_lab import CHROMIUM, CHROMIUM_ARGS, JupyterLab
from course.gate import DENIED
from course.i18n import speaking, tr
from course.viz.explorer import Explorer

pytestmark = pytest.mark.browser  # skipped without Debian's chromium (tests/system_packages.py)

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "04_termination.ipynb"
# the lesson with the plots (committed outputs)
PLOTS = ROOT / "notebooks" / "07_context_growth_and_budgets.ipynb"
JAPANESE = ROOT / "notebooks" / "ja" / "04_termination.ipynb"
SHOTS = ROOT / "build" / "browser"
RUN_S, CHANGE_S = 180, 60  # generous: the machine may be busy
WIDTHS = (1024, 1400)
WIDGET_ERROR = "Error displaying widget"

# Relative luminance and contrast ratio of WCAG 2.x, on the computed rgb() colours.
CONTRAST_JS = """(spans) => {
    const rgb = (c) => c.match(/[\\d.]+/g).slice(0, 3).map(Number);
    const lum = (c) => { const [r, g, b] = rgb(c).map(v => { v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    return spans.map(s => { const st = getComputedStyle(s), a = lum(st.color), b = lum(st.backgroundColor);
        return [s.textContent, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]; });
}"""  # noqa: E501
# Controls whose text does not fit: the element's content is wider than its box, or it sticks out of
# the explorer.
CLIPPED_JS = """(explorer) => {
    const box = explorer.getBoundingClientRect();
    const controls = explorer.querySelectorAll('button, label, .widget-label, .widget-readout, select, .widget-html');
    const out = [];
    for (const e of controls) {
        if (e.offsetParent === null) continue;  // hidden (the play timer)
        const r = e.getBoundingClientRect();
        if (e.scrollWidth > e.clientWidth + 1 || r.right > box.right + 1)
            out.push(`${e.tagName.toLowerCase()} "${e.textContent.trim().slice(0, 40)}"`);
    }
    if (explorer.scrollWidth > explorer.clientWidth + 1) out.push('the explorer scrolls sideways');
    const select = explorer.querySelector('select'), st = getComputedStyle(select);
    const ctx = document.createElement('canvas').getContext('2d');
    ctx.font = `${st.fontSize} ${st.fontFamily}`;
    for (const o of select.options)
        if (ctx.measureText(o.text).width + 28 > select.clientWidth) out.push(`scenario title cut: ${o.text}`);
    return out;
}"""  # noqa: E501


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab serving lesson 04 executed by this code (04_<test>.ipynb), the Japanese lesson 04
    as committed (04_ja.ipynb: its test runs it before looking at its explorer), lesson 07,
    and the small notebooks of explorers (steps.ipynb: always_tool, then fix_failing_test;
    keys.ipynb: one_shot, then a plain cell; names.ipynb: aurora_run, then a lesson-03 loop's, which
    takes no budget; contrast.ipynb: always_tool, ten tool_use ids; busy.ipynb: always_tool at
    max_turns 3, named `explorer`; 03_wrap.ipynb: lesson 03, as committed)."""
    scratch = tmp_path_factory.mktemp("lab")
    root = scratch / "root"
    root.mkdir()
    executed = root / NOTEBOOK.name
    shutil.copy(NOTEBOOK, executed)
    shutil.copy(JAPANESE, root / "04_ja.ipynb")
    # the outputs of this code, not of the commit (the lead re-executes every notebook after
    # merging), made while JupyterLab starts
    execute = subprocess.Popen([sys.executable, "-m", "course", "execute", str(executed)],
                               cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        shutil.copy(PLOTS, root / "07_plots.ipynb")
        explorer_notebook(root / "steps.ipynb", 'Explorer("always_tool")',
                          'Explorer("fix_failing_test")')
        explorer_notebook(root / "keys.ipynb", 'Explorer("one_shot")',
                          '"the cell after the explorer"')
        explorer_notebook(root / "names.ipynb", 'Explorer("aurora_run")', STUDENT_LOOP,
                          'Explorer("aurora_run", loop=agent_loop)')
        explorer_notebook(root / "contrast.ipynb", 'Explorer("always_tool")')
        explorer_notebook(root / "busy.ipynb",
                          'explorer = Explorer("always_tool", max_turns=3)\nexplorer')
        shutil.copy(ROOT / "notebooks" / "03_the_first_loop.ipynb", root / "03_wrap.ipynb")
        settings = scratch / "settings" / "@jupyterlab"
        # every cell rendered, in view or not, so that elements can be found, measured and scrolled
        # to
        tracker = settings / "notebook-extension" / "tracker.jupyterlab-settings"
        tracker.parent.mkdir(parents=True)
        tracker.write_text(json.dumps({"windowingMode": "none"}))
        # no autosave: a notebook is saved only when a test saves it
        docmanager = settings / "docmanager-extension" / "plugin.jupyterlab-settings"
        docmanager.parent.mkdir(parents=True)
        docmanager.write_text(json.dumps({"autosave": False}))
        with JupyterLab(root, scratch) as server:
            out, _ = execute.communicate(timeout=RUN_S)
            assert execute.returncode == 0, out.decode()[-3000:]
            for name in ("controls", "narrow", "keys", "names"):
                shutil.copy(executed, root / f"04_{name}.ipynb")
            yield server
    finally:
        if execute.poll() is None:
            execute.kill()
            execute.wait()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module", autouse=True)
def patient_expect():
    """expect() waits up to CHANGE_S for what the kernel, JupyterLab or rendering brings (its own
    default, 5 s, is too short on a busy machine; page.set_default_timeout does not reach it); the
    checks of what the page shows at once say AT_ONCE_MS."""
    from playwright.sync_api import expect

    expect.set_options(timeout=CHANGE_S * 1000)
    yield
    expect.set_options(timeout=5_000)  # Playwright's default, for any other module


def open_notebook(browser, lab, name: str, width: int = 1400):
    """A page showing notebook `name` with its kernel ready."""
    page = browser.new_page(viewport={"width": width, "height": 1000})
    page.set_default_timeout(RUN_S * 1000)
    # this notebook alone, not the last page's tabs
    workspace = f"{Path(name).stem}-{width}-{secrets.token_hex(4)}"
    page.goto(f"{lab.base}/lab/workspaces/{workspace}/tree/{name}?reset&token={lab.token}")
    page.wait_for_selector(".jp-Notebook .jp-Cell")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext")
    page.evaluate("""async () => { const panel = window.jupyterapp.shell.currentWidget;
        await panel.context.ready; await panel.sessionContext.ready; }""")
    return page


def beside_the_file_browser(browser, lab, name: str):
    """Notebook `name` at 1024 px with the file browser open, as a student on a laptop sees it (laid
    out beside it: the notebook starts where the file browser ends)."""
    page = open_notebook(browser, lab, name, width=1024)
    page.evaluate("() => window.jupyterapp.commands.execute('filebrowser:activate')")
    page.locator(".jp-FileBrowser").wait_for()
    page.wait_for_function("""() => {
        const files = document.querySelector('.jp-FileBrowser').getBoundingClientRect();
        const notebook = window.jupyterapp.shell.currentWidget.node.getBoundingClientRect();
        return files.width > 0 && notebook.left >= files.right && notebook.right <= window.innerWidth; }""")  # noqa: E501
    next_frames(page)
    return page


# Whether the element is wholly on screen; if not, scrolled there for the next poll (a layout still
# settling may move it away again).
IN_VIEW_JS = """(e) => { const r = e.getBoundingClientRect();
    if (r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth) return true;
    e.scrollIntoView({block: 'center'});
    return false; }"""


def in_view(page, locator) -> None:
    """Until `locator` is on screen: scrolled to, and looked at again, not scrolled to once."""
    page.wait_for_function(IN_VIEW_JS, arg=locator.element_handle())


def next_frames(page) -> None:
    """Until the page has drawn two more frames: what a key or a layout changed is on screen."""
    page.evaluate("() => new Promise(done => requestAnimationFrame(() => "
                  "requestAnimationFrame(done)))")


# A kernel round trip: an empty silent execution, done once its reply and its idle status have come
# back, so every message the kernel sent before answering it has reached the page (the kernel
# answers the page's messages in order).
ROUND_TRIP_JS = """async () => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    await kernel.requestExecute({code: '', silent: true, store_history: false}).done;
}"""


def settled(page) -> None:
    """Every message in flight answered: a round trip for what the kernel sent, another for anything
    the page sent back on receiving it (a slider echoing a value), then the frames that show it."""
    for _ in range(2):
        page.evaluate(ROUND_TRIP_JS)
        next_frames(page)


class Pages:
    """The module's pages, each notebook opened (and run) once at a width: tests that only look
    share a page."""

    def __init__(self, browser, lab):
        self.browser, self.lab, self.open, self.ran = browser, lab, {}, {}

    def page(self, name: str, width: int = 1024, *, files: bool = False):
        """Notebook `name` at `width` px (beside the file browser with `files`), opened on first
        use."""
        key = (name, width, files)
        if key not in self.open:
            opened = beside_the_file_browser if files else partial(open_notebook, width=width)
            self.open[key] = opened(self.browser, self.lab, name)
        return self.open[key]

    def explorers(self, name: str, count: int, width: int = 1024) -> list:
        """The `count` explorers of notebook `name`, its cells run once."""
        if (name, width, False) not in self.ran:
            self.ran[name, width, False] = run_explorers(self.page(name, width), count)
        return self.ran[name, width, False]

    def lesson(self, name: str, width: int = 1024, *, files: bool = False):
        """The first explorer of lesson notebook `name` (as `page` opens it), its cells run once."""
        if (name, width, files) not in self.ran:
            self.ran[name, width, files] = run_all(self.page(name, width, files=files))
        return self.ran[name, width, files]

    def close(self) -> None:
        for page in self.open.values():
            page.close()


@pytest.fixture(scope="module")
def pages(browser, lab):
    kept = Pages(browser, lab)
    yield kept
    kept.close()


def run_all(page):
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # lesson 04 has two: the reference loop, then yours
    explorer = page.locator(".course-explorer").first
    explorer.locator(".course-frame").wait_for(state="attached")
    explorer.scroll_into_view_if_needed()
    return explorer


def shoot(page, locator, name: str, width: int) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    assert (SHOTS / f"{name}-{width}.png").stat().st_size > 2_000


SCROLL_TO_OUTPUT_JS = """async (needle) => {
    const panel = window.jupyterapp.shell.currentWidget, cells = panel.content.widgets;
    const i = cells.findIndex(c => c.model.type === 'code'
        && c.model.outputs.toJSON().some(o => JSON.stringify(o.data || {}).includes(needle)));
    if (i >= 0) await panel.content.scrollToItem(i, 'start');
    return i;
}"""  # a long notebook renders only the cells in view


def shoot_output(page, needle: str, selector: str, name: str, width: int) -> None:
    """The first output holding `needle`, scrolled to and photographed."""
    assert page.evaluate(SCROLL_TO_OUTPUT_JS, needle) >= 0, f"the notebook has no {name} output"
    shoot(page, page.locator(".jp-OutputArea-output").filter(has=page.locator(selector)).first,
          name, width)


def shoot_lesson_views(pages, page, width: int, *, files: bool = False) -> None:
    """Lesson 04's message-list view, and a plot of lesson 07 (04 has none)."""
    shoot_output(page, "course-messages", ".course-messages", "message-list", width)
    shoot_output(pages.page("07_plots.ipynb", width, files=files), "image/png", "img", "plot",
                 width)


def slider(explorer, page, label: str):
    return explorer.locator(".widget-slider", has=page.locator("label", has_text=label))


def test_the_explorer_follows_its_controls_and_labels_them(pages):
    from playwright.sync_api import expect

    page = pages.page("04_controls.ipynb", 1400)
    news = page.locator(".jp-toast-container", has_text="news")
    snapshot = page.locator(".jp-OutputArea-output", has_text="Loop explorer · scenario aurora_run")
    expect(snapshot).to_be_visible()  # before running: the committed snapshot, untrusted, no widget
    expect(snapshot).to_contain_text("run this cell to get the controls")
    assert snapshot.text_content().count("outcome") == 1  # the outcome line is not repeated
    assert news.count() == 0, "JupyterLab's news popup covers the lesson"
    shoot(page, snapshot, "explorer-snapshot", 1400)
    shoot_lesson_views(pages, page, 1400)
    explorer = pages.lesson("04_controls.ipynb", 1400)
    outcome = explorer.locator(".course-outcome").first
    expect(outcome).to_have_text("success")
    buttons = {b.inner_text().strip(): b.get_attribute("title")
               for b in explorer.locator("button").all()
               if b.is_visible()}
    for label in ("first", "back", "play / pause", "next", "last", "search"):
        assert buttons.get(label), f"no labelled button {label!r} with a tooltip among {buttons}"
    max_turns = slider(explorer, page, "max_turns")
    expect(max_turns.locator(".widget-readout")).to_have_text("10")
    handle = max_turns.locator(".noUi-handle")
    handle.press("Home")  # max_turns 0
    handle.press("ArrowRight")  # max_turns 1
    expect(max_turns.locator(".widget-readout")).to_have_text("1")
    expect(outcome).to_have_text("error_max_turns")
    frame = explorer.locator(".course-frame")
    expect(frame).to_contain_text("model calls: 2 / 2 (T+1)")
    expect(explorer).to_contain_text("after 2 calls, 1 turn")
    step = slider(explorer, page, "step").locator(".widget-readout")
    explorer.locator("button", has_text="first").click()
    expect(step).to_have_text("0")
    expect(frame).to_contain_text("outcome at this step: running")
    explorer.locator("button", has_text="next").click()
    expect(step).to_have_text("1")
    explorer.locator("button", has_text="play / pause").click()  # plays on from step 1 ...
    expect(step).not_to_have_text("1")
    # ... and pauses where it is, not at step 0
    explorer.locator("button", has_text="play / pause").click()
    # the timer is the play widget's, in the page: stopped once it shows its play icon again (no
    # step comes after)
    expect(explorer.locator(".widget-play i.fa-play")).to_have_count(1)
    settled(page)  # and no step already on its way
    paused = step.inner_text()
    assert paused != "0"
    settled(page)
    assert step.inner_text() == paused  # at once (a timeout of 0 would wait for ever)
    line = frame.locator("div").first.evaluate("e => parseFloat(getComputedStyle(e).lineHeight)")
    assert line < 20, f"frame text has a {line} px line-height"
    shoot(page, explorer, "explorer", 1400)


def test_the_explorer_fits_1024_px_with_the_file_browser_open(pages):
    from playwright.sync_api import expect

    page = pages.page("04_narrow.ipynb", files=True)
    assert page.locator(".jp-FileBrowser").is_visible()
    shoot_lesson_views(pages, page, 1024, files=True)
    assert page.evaluate(SCROLL_TO_OUTPUT_JS, "Loop explorer") >= 0
    shoot(page,
          page.locator(".jp-OutputArea-output", has_text="Loop explorer · scenario aurora_run"),
          "explorer-snapshot", 1024)
    explorer = pages.lesson("04_narrow.ipynb", files=True)
    # deny search: the toggle shows its on state
    explorer.locator("button", has_text="search").click()
    denied = explorer.locator("button.course-deny", has_text="search")
    # not by colour alone
    expect(denied.locator("i.fa-ban")).to_have_count(1)
    expect(explorer.locator(".course-frame")).to_contain_text(str(DENIED))
    shoot(page, explorer, "explorer", 1024)
    page.screenshot(path=str(SHOTS / "lab-1024.png"))
    clipped = explorer.evaluate(CLIPPED_JS)
    assert not clipped, f"clipped at 1024 px: {clipped}"
    lines = explorer.locator(".course-outcome").first.evaluate(
        "e => { const line = e.parentElement; return line.getBoundingClientRect().height"
        " / parseFloat(getComputedStyle(line).lineHeight); }")
    assert lines < 1.5, f"the outcome line wraps onto {lines:.1f} lines"


@pytest.mark.japanese_font
def test_the_japanese_lesson_speaks_japanese_and_fits_1024_px(pages):
    from playwright.sync_api import expect

    page = pages.page("04_ja.ipynb", files=True)
    expect(page.locator(".jp-RenderedMarkdown h1").first).to_contain_text("04 停止")
    explorer = pages.lesson("04_ja.ipynb", files=True)
    with speaking("ja"):
        turns = tr("tool-use turns")  # the meter's label, as the catalogue says it
        step = tr("step")
        denied = tr(DENIED)  # how the gate's refusal begins
    assert turns != "tool-use turns" and denied != DENIED
    expect(explorer.get_by_role("slider", name=step)).to_have_count(1)  # named in Japanese too
    expect(explorer.locator(".course-frame")).to_contain_text(f"{turns}：")
    # the gate's refusal, as the Japanese frame says it
    explorer.locator("button", has_text="search").click()
    expect(explorer.locator(".course-frame")).to_contain_text(denied)
    shoot(page, explorer, "explorer-ja", 1024)
    clipped = explorer.evaluate(CLIPPED_JS)
    assert not clipped, f"clipped at 1024 px in Japanese: {clipped}"


CELLS_JS = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
    return {count: nb.widgets.length, types: nb.widgets.map(c => c.model.type).join(' '), active: nb.activeCellIndex,
            focused: document.activeElement.tagName, cell: document.activeElement.classList.contains('jp-Cell')}; }"""  # noqa: E501
# The focused element's outline: its width, and its contrast with what lies behind it (the first
# opaque background), with the luminance of CONTRAST_JS.
FOCUS_RING_JS = CONTRAST_JS.replace("(spans) => {", "(e) => {").split("return spans")[0] + r"""
    const st = getComputedStyle(e);
    let behind = e.parentElement, bg = 'rgb(255, 255, 255)';
    for (; behind; behind = behind.parentElement) {
        const c = getComputedStyle(behind).backgroundColor;
        if (!/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') { bg = c; break; }
    }
    const a = lum(st.outlineColor), b = lum(bg);
    return [st.outlineStyle, parseFloat(st.outlineWidth), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
}"""  # noqa: E501


def test_keys_pressed_in_the_explorer_stay_in_the_explorer(pages):
    """JupyterLab runs a command-mode shortcut for a key pressed on a button or a select unless told
    not to."""
    from playwright.sync_api import expect

    page = pages.page("04_keys.ipynb")
    explorer = pages.lesson("04_keys.ipynb")
    expect(explorer.locator(".course-outcome").first).to_have_text("success")
    choice = explorer.get_by_role("combobox", name="scenario")
    choice.focus()
    before = page.evaluate(CELLS_JS)
    page.keyboard.press("ArrowDown")  # the next scenario, not the next cell
    expect(choice).to_have_value(re.compile("^one_shot:"))
    expect(explorer.locator(".course-frame")).to_contain_text("answer: Paris")
    after = page.evaluate(CELLS_JS)
    assert (after["active"], after["focused"]) == (before["active"], "SELECT"), (before, after)
    # a slider's arrow keys stay in it too
    explorer.get_by_role("slider", name="max_turns").press("ArrowUp")
    assert page.evaluate(CELLS_JS)["active"] == before["active"]
    explorer.get_by_role("button", name="next").focus()
    for key in ("a", "b", "d", "d", "x", "m"):  # insert above, below, delete, cut, to Markdown
        page.keyboard.press(key)
    next_frames(page)  # a shortcut runs at once, on the key: the notebook would show it by now
    after = page.evaluate(CELLS_JS)
    assert (after["count"], after["types"]) == (before["count"], before["types"])
    page.keyboard.press("Escape")  # back to the notebook: its shortcuts work again
    assert page.evaluate(CELLS_JS)["cell"]
    page.keyboard.press("b")
    expect(page.locator(".jp-Notebook .jp-Cell")).to_have_count(before["count"] + 1)


def test_a_screen_reader_hears_names_states_and_each_step(pages):
    from playwright.sync_api import expect

    page = pages.page("04_names.ipynb")
    explorer = pages.lesson("04_names.ipynb")
    expect(explorer.locator(".course-outcome").first).to_have_text("success")
    for name, readout in (("max_turns", "10"), ("budget", "$0.000000"), ("step", "6")):
        expect(explorer.get_by_role("slider", name=name)).to_have_attribute(
            "aria-valuetext", readout)
    search = explorer.get_by_role("button", name="search", pressed=False)
    play = explorer.get_by_role("button", name="play / pause", pressed=False)
    expect(search).to_have_count(1)
    expect(play).to_have_count(1)
    search.click()
    expect(explorer.get_by_role("button", name="search", pressed=True)).to_have_count(1)
    status = explorer.get_by_role("status")
    # once
    expect(status).to_have_text(re.compile(r"^outcome of the run: \w+ after"))
    messages = explorer.locator(".course-messages").inner_text()
    # words, not "#1tool_usesearch"
    assert "#1 tool_use search" in messages and "text In which year" in messages
    explorer.get_by_role("slider", name="step").press("Home")
    expect(status).to_have_text(re.compile(r"^step 0 / \d+: the prompt is sent$"))
    explorer.get_by_role("button", name="back").focus()
    page.keyboard.press("Tab")  # to play / pause, by keyboard: the focus ring shows
    expect(explorer.get_by_role("button", name="play / pause")).to_be_focused()
    style, width, contrast = page.evaluate(FOCUS_RING_JS,
                                           page.evaluate_handle("() => document.activeElement"))
    assert style == "solid" and width >= 2 and contrast >= 3, (style, width, contrast)
    page.keyboard.press("Enter")
    expect(explorer.get_by_role("button", name="play / pause", pressed=True)).to_have_count(1)
    page.keyboard.press("Enter")


def test_plots_are_drawn_at_full_size_at_1024_px(pages):
    page = pages.page("07_plots.ipynb", files=True)
    images = page.locator(".jp-OutputArea-output img")
    images.first.wait_for()
    sizes = images.evaluate_all("imgs => imgs.map(i => [i.naturalWidth, i.clientWidth])")
    assert sizes and all(shown == natural for natural, shown in sizes), ("scaled down (natural, "
                                                                         f"shown): {sizes}")


def test_every_badge_reaches_wcag_aa_contrast(pages):
    """always_tool's ten tool_use ids, each badge against its own background (the theme the page
    has)."""
    from playwright.sync_api import expect

    page = pages.page("contrast.ipynb")
    (explorer,) = pages.explorers("contrast.ipynb", 1)
    expect(explorer.locator(".course-frame")).to_contain_text("tool-use turns: 10 / 10")
    badges = explorer.locator(".course-messages span").filter(has_text="#").element_handles()
    ratios = page.evaluate(CONTRAST_JS, badges)
    numbers = {text for text, _ in ratios}
    # every colour of the palette is on screen
    assert {f"#{n}" for n in range(1, 11)} <= numbers, numbers
    low = [(text, round(ratio, 2)) for text, ratio in ratios if ratio < 4.5]
    assert not low, f"badges under 4.5:1: {low}"
    shoot(page, explorer, "explorer-badges", 1024)


# The notebook's widget outputs, and those the widget manager has not drawn yet: empty until it has
# restored its models (or found them gone).
UNDRAWN_WIDGETS_JS = """() => { let all = 0, undrawn = 0;
    for (const cell of window.jupyterapp.shell.currentWidget.content.widgets) {
        if (cell.model.type !== 'code') continue;
        cell.model.outputs.toJSON().forEach((o, i) => {
            if (!(o.data || {})['application/vnd.jupyter.widget-view+json']) return;
            all += 1;
            const child = cell.outputArea.widgets[i];
            const shown = child && child.node.querySelector('.jp-OutputArea-output');
            if (!shown || (!shown.textContent.trim() && !shown.children.length)) undrawn += 1;
        });
    }
    return [all, undrawn]; }"""


def test_a_saved_lesson_reopens_without_a_widget_error(pages):
    from playwright.sync_api import expect

    pages.lesson("04_narrow.ipynb", files=True)  # the lesson as the 1024 px test ran it
    page = pages.page("04_narrow.ipynb", files=True)
    settled(page)  # its widgets as they stand, no model on its way, go into the file
    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    expect(page.locator(".jp-mod-dirty")).to_have_count(0)
    saved = Path(pages.lab.folder, "04_narrow.ipynb")
    outputs = [o for c in json.loads(saved.read_text())["cells"] for o in c.get("outputs", [])]
    view = "application/vnd.jupyter.widget-view+json"
    # the live widget's output, as autosave writes it
    assert any(view in o.get("data", {}) for o in outputs)
    # reopened under another name: no kernel has its widgets, as after a restart of the machine
    shutil.copy(saved, saved.with_name("04_reopen.ipynb"))
    page = open_notebook(pages.browser, pages.lab, "04_reopen.ipynb", width=WIDTHS[0])
    try:
        assert page.evaluate(SCROLL_TO_OUTPUT_JS, view) >= 0
        output = page.locator(".jp-OutputArea-output", has_text="Loop explorer").or_(
            page.locator(".course-explorer"))
        expect(output.first).to_be_visible()
        # every widget drawn, or an error in its place (lesson 04 has two explorers)
        page.wait_for_function(f"() => {{ const [all, undrawn] = ({UNDRAWN_WIDGETS_JS})();"
                               " return all >= 2 && !undrawn; }")
        assert page.get_by_text(WIDGET_ERROR).count() == 0, (f"{WIDGET_ERROR} after reopening a "
                                                             "saved lesson")
        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 1000})
            next_frames(page)
            shoot(page, output.first, "explorer-reopened", width)
    finally:
        page.close()


# --- explorers in a notebook of their own: no lesson to execute first
# ---------------------------------------------
def explorer_notebook(path: Path, *cells: str) -> None:
    """A notebook that imports the explorer and runs `cells`, one explorer each."""
    sources = ["from course.viz.explorer import Explorer", *cells]
    nb = {"nbformat": 4, "nbformat_minor": 5,
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                      "language": "python"}},
          "cells": [{"cell_type": "code", "id": f"cell{i}", "metadata": {}, "execution_count": None,
                     "outputs": [], "source": source} for i, source in enumerate(sources)]}
    path.write_text(json.dumps(nb))


def run_explorers(page, count: int):
    """Run every cell; the page's `count` explorers once each shows a frame."""
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    explorers = page.locator(".course-explorer")
    explorers.nth(count - 1).locator(".course-frame").wait_for(state="attached")
    return [explorers.nth(i) for i in range(count)]


# What says which step is shown: the frame's first line, the step slider's handle and readout, the
# status region.
SHOWN_STEP_JS = """(explorer) => {
    const at = (text) => { const m = /step (\\d+) \\/ (\\d+)/.exec(text || '');
                           return m ? `${m[1]} / ${m[2]}` : text; };
    const step = [...explorer.querySelectorAll('.widget-slider')].find(
        s => s.querySelector('.widget-label').textContent.trim() === 'step');
    const handle = step.querySelector('.noUi-handle'), number = (name) => Number(handle.getAttribute(name));
    return {frame: at(explorer.querySelector('.course-frame > div').textContent),
            handle: `${number('aria-valuenow')} / ${number('aria-valuemax')}`,
            readout: `${step.querySelector('.widget-readout').textContent.trim()} / ${number('aria-valuemax')}`,
            status: at(explorer.querySelector('[role=status]').textContent)};
}"""  # noqa: E501


def shows_last_step(page, explorer, last: int) -> None:
    """The run's last step is shown, and the frame, the step slider, its readout and the status
    region agree, also once every message in flight is answered (a slider echoing an old value would
    move the view back)."""
    from playwright.sync_api import expect

    expect(explorer.locator(".course-frame > div").first).to_contain_text(f"step {last} / {last}:")
    settled(page)
    expected = f"{last} / {last}"
    shown = explorer.evaluate(SHOWN_STEP_JS)
    assert shown == dict.fromkeys(shown, expected), shown


def test_after_max_turns_rises_the_step_slider_shows_the_last_step(pages):
    """Issue 30 item 1: always_tool by arrow keys, fix_failing_test by typing in the readout, then
    by dragging."""
    from playwright.sync_api import expect

    page = pages.page("steps.ipynb")
    always, fix = pages.explorers("steps.ipynb", 2)
    handle = slider(always, page, "max_turns").locator(".noUi-handle")
    handle.press("Home")
    shows_last_step(page, always, 2)  # T = 0: one call, three frames
    for turns in range(1, 5):
        handle.press("ArrowRight")
        shows_last_step(page, always, 2 * turns + 2)
    max_turns = slider(fix, page, "max_turns")
    readout = max_turns.locator(".widget-readout")
    for turns, last in ((2, 6), (3, 8)):
        readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type(str(turns))
        page.keyboard.press("Enter")
        shows_last_step(page, fix, last)
    in_view(page, max_turns)  # the mouse reaches what is on screen
    track = max_turns.locator(".noUi-base").bounding_box()
    handle = max_turns.locator(".noUi-handle").bounding_box()
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()  # dragged from 3 to 10: fix_failing_test then ends within its cap
    page.mouse.move(track["x"] + track["width"] * 10 / 15, track["y"] + track["height"] / 2,
                    steps=8)
    page.mouse.up()
    expect(max_turns.locator(".widget-readout")).to_have_text("10")
    shows_last_step(page, fix, 10)


# Keep the kernel busy (outside any cell, as a long cell would) until the file `release` exists:
# window.kernelBusy until it is done.
BUSY_JS = """async (release) => {
    const kernel = window.jupyterapp.shell.currentWidget.sessionContext.session.kernel;
    window.kernelBusy = true;
    const code = `import os, time\nwhile not os.path.exists(${JSON.stringify(release)}):\n    time.sleep(0.05)`;
    const future = kernel.requestExecute({code, silent: true, store_history: false});
    future.done.then(() => { window.kernelBusy = false; });
}"""  # noqa: E501


@contextmanager
def kernel_busy(page, scratch: Path):
    """The page's kernel busy for the block, which must end with it still busy (or it proves
    nothing); then released (a file in `scratch`, outside what JupyterLab serves) and idle again."""
    release = scratch / f"release-{secrets.token_hex(4)}"
    page.evaluate(BUSY_JS, str(release))
    try:
        yield
        busy = page.evaluate("() => window.kernelBusy")
        assert busy, "the kernel was free: the test proves nothing"
    finally:
        release.touch()
    page.wait_for_function("() => !window.kernelBusy")


def shows(page, explorer, step: int, last: int) -> None:
    """Step `step` of a run of `last` steps is shown at once, and the frame, the step slider, its
    readout and the status region say so (without asking the kernel)."""
    from playwright.sync_api import expect

    expect(explorer.locator(".course-frame > div").first).to_contain_text(
        f"step {step} / {last}:", timeout=AT_ONCE_MS)
    shown = explorer.evaluate(SHOWN_STEP_JS)
    assert shown == dict.fromkeys(shown, f"{step} / {last}"), shown


# a change made in the page, on a loaded machine
AT_ONCE_MS = 3000


def test_the_page_switches_frames_without_the_kernel_and_says_when_a_run_is_being_made(pages):
    """Issue 30 item 8: with the kernel busy, the step and max_turns sliders show the frames of the
    runs the page has at once; a max_turns not run yet, or another scenario, shows "running" (never
    another run's frame) until the kernel sends its run."""
    from playwright.sync_api import expect

    page = pages.page("busy.ipynb")
    (explorer,) = pages.explorers("busy.ipynb", 1)
    shows(page, explorer, 8, 8)  # T = 3: four calls, nine frames
    settled(page)  # the page has asked for the runs, and has T = 3's
    step, max_turns = (slider(explorer, page, name).locator(".noUi-handle")
                       for name in ("step", "max_turns"))
    pending = explorer.locator(".course-pending")
    with kernel_busy(page, pages.lab.scratch):
        step.press("Home")
        shows(page, explorer, 0, 8)
        step.press("ArrowRight")
        shows(page, explorer, 1, 8)
        max_turns.press("ArrowRight")  # T = 4: not run yet
        expect(pending).to_have_text("running the loop with max_turns = 4…", timeout=AT_ONCE_MS)
        expect(explorer.locator(".course-frame")).to_have_count(0, timeout=AT_ONCE_MS)
        expect(explorer.get_by_role("status")).to_have_text(
            "running the loop with max_turns = 4…", timeout=AT_ONCE_MS)
        # no outcome of another run
        expect(explorer.locator(".course-outcome")).to_have_count(0, timeout=AT_ONCE_MS)
        # T = 3 again: its run is in the page, shown from its last step
        max_turns.press("ArrowLeft")
        shows(page, explorer, 8, 8)
        expect(explorer.get_by_role("status")).to_have_text(
            re.compile(r"^outcome of the run: error_max_turns after 4"), timeout=AT_ONCE_MS)
        max_turns.press("ArrowRight")
        expect(pending).to_have_count(1, timeout=AT_ONCE_MS)
    shows_last_step(page, explorer, 10)  # the run arrived: T = 4, five calls
    expect(explorer.locator(".course-outcome").first).to_have_text("error_max_turns")
    with kernel_busy(page, pages.lab.scratch):
        choice = explorer.locator("select")  # another scenario: the kernel makes its run
        choice.select_option(label=next(o for o in choice.locator("option").all_text_contents()
                                        if o.startswith("one_shot:")))
        expect(pending).to_have_text("running the loop with max_turns = 4…", timeout=AT_ONCE_MS)
        expect(explorer.locator(".course-frame")).to_have_count(0, timeout=AT_ONCE_MS)
    shows_last_step(page, explorer, 2)  # one call
    expect(explorer.locator(".course-frame")).to_contain_text("answer: Paris")


ACTIVE_CELL_JS = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
    return {count: nb.widgets.length, active: nb.activeCellIndex, runs: nb.widgets[1].model.executionCount}; }"""  # noqa: E501


def test_save_and_run_reach_the_notebook_from_the_explorer_and_it_says_so(pages):
    """Issue 30 item 3: letters stay in the explorer; Ctrl+S saves, Ctrl+Enter and Shift+Enter run
    its cell."""
    from playwright.sync_api import expect

    page = pages.page("keys.ipynb")
    (explorer,) = pages.explorers("keys.ipynb", 1)
    expect(explorer).to_contain_text("Esc gives every key back to the notebook")
    dirty = page.locator(".jp-mod-dirty")
    expect(dirty).not_to_have_count(0)  # run, not saved
    explorer.get_by_role("button", name="next").focus()
    before = page.evaluate(ACTIVE_CELL_JS)
    for key in ("a", "b", "m"):  # insert above, below, to Markdown: kept in the explorer
        page.keyboard.press(key)
    page.keyboard.press("Control+s")
    expect(dirty).to_have_count(0)
    assert page.evaluate(ACTIVE_CELL_JS) == before == {**before, "count": 3, "active": 1}
    page.keyboard.press("Control+Enter")  # runs the explorer's cell, which stays the active one
    page.wait_for_function(f"() => ({ACTIVE_CELL_JS})().runs > {before['runs']}")
    assert page.evaluate(ACTIVE_CELL_JS)["active"] == 1
    again = page.evaluate(ACTIVE_CELL_JS)["runs"]
    explorer.locator(".course-frame").wait_for(state="attached")
    explorer.get_by_role("button", name="next").focus()
    page.keyboard.press("Shift+Enter")  # runs it and moves on to the next cell
    page.wait_for_function(f"() => ({ACTIVE_CELL_JS})().runs > {again}")
    assert page.evaluate(ACTIVE_CELL_JS)["active"] == 2


# Every Tab stop from the explorer's first control until the focus leaves it: what it is, its role
# and name.
TAB_STOPS_JS = """(explorer) => {
    const e = document.activeElement;
    if (!explorer.contains(e)) return null;
    return {what: `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`, role: e.getAttribute('role'),
            name: e.getAttribute('aria-label') || e.textContent.trim().slice(0, 30)};
}"""  # noqa: E501


def tab_stops(page, explorer) -> list[dict]:
    explorer.locator("select").focus()
    stops = [explorer.evaluate(TAB_STOPS_JS)]
    while stops[-1] is not None and len(stops) < 60:
        page.keyboard.press("Tab")
        stops.append(explorer.evaluate(TAB_STOPS_JS))
    return stops[:-1]


def test_names_carry_no_icon_glyph_and_every_tab_stop_is_a_named_control(pages):
    """Issue 30 item 4: buttons named by their words alone, readouts no Tab stops, the budget slider
    of a loop that takes no budget disabled and out of the Tab order, and the budget's range as
    set."""
    from playwright.sync_api import expect

    page = pages.page("names.ipynb")
    reference, yours = pages.explorers("names.ipynb", 2)
    for name in ("first", "back", "play / pause", "next", "last", "search"):
        expect(reference.get_by_role("button", name=name, exact=True)).to_have_count(1)
    # denied: it shows a sign, named as before
    reference.get_by_role("button", name="search", exact=True).click()
    denied = reference.get_by_role("button", name="search", exact=True, pressed=True)
    expect(denied).to_have_count(1)
    top = Explorer("aurora_run").budget.max
    expect(reference.get_by_role("slider", name="budget")).to_have_attribute(
        "aria-valuemax", str(top))
    expect(reference.get_by_role("slider", name="max_turns")).to_have_attribute(
        "aria-valuenow", "10")
    budget = yours.get_by_role("slider", name="budget")
    expect(budget).to_have_attribute("aria-disabled", "true")
    for explorer in (reference, yours):
        stops = tab_stops(page, explorer)
        assert len(stops) >= 8, stops  # the select, the sliders, the buttons
        unnamed = [s for s in stops if "widget-readout" in s["what"] or not s["name"]]
        assert not unnamed, f"Tab stops that are readouts or have no name: {unnamed}"
    assert "budget" not in [s["name"] for s in tab_stops(page, yours)]


# Every text the explorer's own HTML shows, with its contrast ratio (WCAG 2.x) against what is
# behind it: colours as computed (rgb() or color(srgb ...), with alpha and the ancestors' opacity),
# over the backgrounds down to the first opaque one.
TEXT_CONTRAST_JS = """(explorer) => {
    const parse = (c) => { const n = (c.match(/[\\d.]+/g) || []).map(Number), k = c.startsWith('color(') ? 255 : 1;
        return [n[0] * k, n[1] * k, n[2] * k, n.length > 3 ? n[3] : 1]; };
    const over = (top, under) => [0, 1, 2].map(i => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
    const lum = (c) => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const behind = (e) => { const layers = [];
        for (let p = e; p; p = p.parentElement) { const c = parse(getComputedStyle(p).backgroundColor);
            if (c[3] > 0) layers.push(c); if (c[3] >= 1) break; }
        return layers.reverse().reduce((under, c) => over(c, under), [255, 255, 255, 1]); };
    const out = [];
    for (const e of explorer.querySelectorAll('.widget-html-content *')) {
        const own = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        if (!own || !e.getClientRects().length) continue;
        const fg = parse(getComputedStyle(e).color);
        for (let p = e; p && p !== explorer; p = p.parentElement) fg[3] *= parseFloat(getComputedStyle(p).opacity);
        const bg = behind(e), a = lum(over(fg, bg)), b = lum(bg);
        out.push([e.textContent.trim().slice(0, 40), (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)]);
    }
    return out;
}"""  # noqa: E501
THEMES = {"light": "JupyterLab Light", "dark": "JupyterLab Dark"}


# Whether the theme's stylesheet is applied: its page background, --jp-layout-color0, light or dark.
THEME_APPLIED_JS = """(light) => {
    if (document.body.dataset.jpThemeLight !== String(light)) return false;
    const probe = document.createElement('div');
    probe.style.background = 'var(--jp-layout-color0)';
    document.body.appendChild(probe);
    const [r, g, b] = getComputedStyle(probe).backgroundColor.match(/[\\d.]+/g).map(Number);
    probe.remove();
    return (r + g + b) / 3 > 128 === light;
}"""


def set_theme(page, theme: str) -> None:
    page.evaluate("() => window.jupyterapp.commands.execute('apputils:change-theme', {theme: "
                  f"'{THEMES[theme]}'}})")
    page.wait_for_function(THEME_APPLIED_JS, arg=theme == "light")
    next_frames(page)


def test_every_text_of_the_explorer_reaches_wcag_aa_in_light_and_dark_themes(pages):
    """Issue 30 item 5: the frame's greys, the tool_use and tool_result badges, every coloured text:
    4.5:1."""
    from playwright.sync_api import expect

    page = pages.page("contrast.ipynb")
    (explorer,) = pages.explorers("contrast.ipynb", 1)
    expect(explorer.locator(".course-frame")).to_contain_text("tool-use turns: 10 / 10")
    low = {}
    try:
        for theme in THEMES:
            set_theme(page, theme)
            ratios = explorer.evaluate(TEXT_CONTRAST_JS)
            texts = {text for text, _ in ratios}
            # badges and greys measured
            assert {"tool_use", "tool_result", "#10", "(no limit)"} <= texts, texts
            low[theme] = sorted({(text, round(ratio, 2)) for text, ratio in ratios if ratio < 4.5})
            shoot(page, explorer, f"explorer-{theme}", 1024)
    finally:
        set_theme(page, "light")  # the theme is a user setting: later pages open in it
    assert low == {"light": [], "dark": []}, f"texts under 4.5:1: {low}"


# Code cells whose editor scrolls sideways: a line is cut off at the cell's right edge.
CUT_CELLS_JS = """() => [...document.querySelectorAll('.jp-CodeCell .cm-scroller')]
    .map((s, i) => [i, s.scrollWidth - s.clientWidth]).filter(([, over]) => over > 1)"""


def test_code_lines_wrap_at_1024_px_with_the_file_browser_open(pages):
    """Issue 30 item 2: the course's JupyterLab settings wrap code lines (lesson 03's run to 120
    columns)."""
    page = pages.page("03_wrap.ipynb", files=True)  # laid out beside the file browser
    cells = page.locator(".jp-CodeCell .cm-scroller")
    cells.first.wait_for()
    assert cells.count() >= 20
    cut = page.evaluate(CUT_CELLS_JS)
    assert not cut, f"code cells (index, px cut off) at 1024 px: {cut}"
