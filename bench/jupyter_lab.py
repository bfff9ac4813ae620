"""A throw-away JupyterLab server on loopback, for the browser test and the explorer benchmark.

It serves a folder, with its own config, runtime and settings directories, the course's
settings overrides (jupyter/overrides.json, as `make lab` installs them) and a random
token; it stops with its kernels when the `with` block ends.
"""
from __future__ import annotations

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

ROOT = Path(__file__).resolve().parent.parent
# the course's JupyterLab settings: no news popup, widget state saved
OVERRIDES = ROOT / "jupyter" / "overrides.json"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
START_S = 120  # generous: the machine may be busy


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLab:
    """`with JupyterLab(folder, scratch) as lab:` serves `folder`; `lab.url(path)` opens a file in
    the browser."""

    def __init__(self, folder: Path, scratch: Path, *, overrides: Path | None = OVERRIDES):
        self.folder, self.scratch, self.overrides = folder, scratch, overrides
        self.port, self.token = free_port(), secrets.token_hex(16)
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = scratch / "lab.log"
        self.proc: subprocess.Popen | None = None

    def url(self, path: str) -> str:
        return f"{self.base}/lab/tree/{path}?token={self.token}"

    def api(self, path: str, method: str = "GET") -> bytes:
        request = urllib.request.Request(f"{self.base}{path}?token={self.token}", method=method)
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.read()

    def __enter__(self) -> JupyterLab:
        app_settings = self.scratch / "app-settings"
        app_settings.mkdir(parents=True, exist_ok=True)
        if self.overrides is not None:
            shutil.copy(self.overrides, app_settings / "overrides.json")
        env = {**os.environ, "JUPYTER_CONFIG_DIR": str(self.scratch / "config"),
               "PYTHONHASHSEED": "0",
               "JUPYTER_RUNTIME_DIR": str(self.scratch / "runtime"),
               "IPYTHONDIR": str(self.scratch / "ipython")}
        env.pop("ANTHROPIC_API_KEY", None)
        env.pop("COURSE_LIVE", None)
        with self.log.open("w") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "jupyterlab", "--no-browser",
                 "--ServerApp.open_browser=False",
                 "--ServerApp.allow_root=True", "--ServerApp.ip=127.0.0.1",
                 f"--ServerApp.port={self.port}",
                 "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                 f"--ServerApp.root_dir={self.folder}", f"--LabApp.app_settings_dir={app_settings}",
                 f"--LabApp.user_settings_dir={self.scratch / 'settings'}",
                 f"--LabApp.workspaces_dir={self.scratch / 'workspaces'}",
                 "--LabApp.expose_app_in_browser=True",
                 "--LabApp.news_url=", "--LabApp.extension_manager=readonly",
                 "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                cwd=self.folder, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True)
        try:
            self.wait_until_up()
        except BaseException:
            self.__exit__()
            raise
        return self

    def wait_until_up(self) -> None:
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("JupyterLab exited with "
                                   f"{self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                self.api("/api/status")
                return
            except OSError:
                time.sleep(0.5)  # polling the server's status, not waiting on a page
        raise RuntimeError(f"JupyterLab did not answer within {START_S} "
                           f"s:\n{self.log.read_text()[-3000:]}")

    def __exit__(self, *exc) -> None:
        try:
            self.api("/api/shutdown", "POST")  # stops the kernels too
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
