"""The loop explorer in a real browser: JupyterLab, headless Debian chromium, Playwright.

Starts JupyterLab on a free loopback port with a token and throw-away settings,
opens a copy of notebooks/04_termination.ipynb, checks that its committed output
shows the explorer's static snapshot, runs all cells, checks that the explorer
widget renders, moves its max_turns slider from 10 to 1 with the
keyboard, and waits for the outcome to turn from success to error_max_turns.
A screenshot goes to build/browser/explorer.png.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "04_termination.ipynb"
SHOT = ROOT / "build" / "browser" / "explorer.png"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
WIDGETS_EXTENSION = Path(sys.prefix, "share", "jupyter", "labextensions", "@jupyter-widgets", "jupyterlab-manager")
START_S, RUN_S, CHANGE_S = 120, 180, 60  # generous: the machine may be busy
NO_NEWS = {"fetchNews": "false", "checkForUpdates": False}

if not Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is missing; install it with `apt-get install -y chromium` (.ci/run does)",
                allow_module_level=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"JupyterLab exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)  # polling the server's status, not waiting on the page
    raise AssertionError(f"JupyterLab did not answer within {START_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture
def lab(tmp_path):
    """A JupyterLab server on loopback serving a copy of the notebook; yields (base URL, token)."""
    assert WIDGETS_EXTENSION.is_dir(), f"the jupyterlab_widgets extension is not installed at {WIDGETS_EXTENSION}"
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    notification = tmp_path / "settings" / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings"
    notification.parent.mkdir(parents=True)
    notification.write_text(json.dumps(NO_NEWS))  # no "get notified about news?" toast over the widget
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
           "IPYTHONDIR": str(tmp_path / "ipython"), "PYTHONHASHSEED": "0"}
    env.pop("ANTHROPIC_API_KEY", None)
    env.pop("COURSE_LIVE", None)
    log = tmp_path / "lab.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.open_browser=False", "--ServerApp.allow_root=True",
             "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
             f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
             f"--LabApp.user_settings_dir={tmp_path / 'settings'}", f"--LabApp.workspaces_dir={tmp_path / 'workspaces'}",
             "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=", "--LabApp.extension_manager=readonly",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}/api/status?token={token}", proc, log)
        yield base, token
    finally:
        request = urllib.request.Request(f"{base}/api/shutdown?token={token}", method="POST")
        try:
            urllib.request.urlopen(request, timeout=10)  # stops the kernels too
            proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def test_explorer_outcome_follows_the_max_turns_slider(lab):
    from playwright.sync_api import expect, sync_playwright

    base, token = lab
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(RUN_S * 1000)
            page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}")
            page.wait_for_selector(".jp-Notebook .jp-Cell")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                                   " && window.jupyterapp.shell.currentWidget.sessionContext")
            state = page.evaluate("""async () => {
                const panel = window.jupyterapp.shell.currentWidget;
                await panel.context.ready;
                await panel.sessionContext.ready;
                return {kernel: panel.sessionContext.session.kernel.name,
                        widgets: window.jupyterapp.isPluginActivated('@jupyter-widgets/jupyterlab-manager:plugin')};
            }""")
            assert state["widgets"], f"the jupyterlab_widgets extension is not active in JupyterLab: {state}"
            # before running: the committed output shows the explorer's static snapshot (untrusted: no widget)
            expect(page.locator(".jp-OutputArea-output", has_text="Loop explorer · scenario aurora_run")).to_be_visible()
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")

            explorer = page.locator(".course-explorer")
            expect(explorer).to_be_visible()
            outcome = explorer.locator(".course-outcome")
            expect(outcome).to_have_text("success")
            slider = explorer.locator(".widget-slider", has=page.locator("label", has_text="max_turns"))
            expect(slider.locator(".widget-readout")).to_have_text("10")

            handle = slider.locator(".noUi-handle")
            handle.focus()
            handle.press("Home")  # max_turns 0
            handle.press("ArrowRight")  # max_turns 1
            expect(slider.locator(".widget-readout")).to_have_text("1")
            expect(outcome).to_have_text("error_max_turns", timeout=CHANGE_S * 1000)
            expect(explorer.locator(".course-frame")).to_contain_text("model calls: 2 / 2 (T+1)", timeout=CHANGE_S * 1000)

            SHOT.parent.mkdir(parents=True, exist_ok=True)
            explorer.screenshot(path=str(SHOT))
        finally:
            browser.close()
    assert SHOT.stat().st_size > 10_000
