"""Workshop benchmark: a real JupyterHub on loopback, a room of simulated students, memory and time
per student.

`jupyterhub` (PyPI) and `configurable-http-proxy` (npm) are installed into
build/workshop/ on first use by their own package managers. The hub runs
workshop/jupyterhub_config.py unchanged (the room password authenticator, a
local process spawner, the course copied into each home) with only its ports
and state folder pointed at a temporary place.

For N students at once, each one does what a browser does: logs in with the
room password, waits for its server, opens JupyterLab (the OAuth round trip),
opens LESSON in a session, and runs its code cells one by one over the kernel's
websocket. Measured: time from login to the lesson's last output, failures,
and, with every student's kernel still alive, the memory of each student's
processes (server + kernel: resident, and unique to them) and the CPU they
used. N grows through STEPS until something fails or the machine would run
short of memory (the machine is shared: a step never starts unless the memory
it needs, from the previous step's figures, leaves MARGIN_GB free).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx2
from tornado.httpclient import HTTPRequest
from tornado.websocket import websocket_connect

from .envs import make_venv, once

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "workshop"
VENV = BUILD / "venv"
PROXY = BUILD / "node_modules" / ".bin" / "configurable-http-proxy"
# what install() puts in BUILD
HUB, PROXY_PACKAGE = "jupyterhub>=6.1,<7", "configurable-http-proxy@5.3"
CONFIG = ROOT / "workshop" / "jupyterhub_config.py"
# the lesson with the most imports: plots, widgets, the loop
LESSON = "notebooks/04_termination.ipynb"
STEPS = (5, 10, 20, 40, 60, 80)
MARGIN_GB = 6.0  # memory left for the machine's other users
PASSWORD = "workshop-bench-room"
CELL_TIMEOUT = 300.0  # seconds a cell may take on a busy machine


def install() -> str:
    """JupyterHub and configurable-http-proxy in build/workshop/, installed once; their versions."""
    def build():
        make_venv(VENV, HUB)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", PROXY_PACKAGE],
                       cwd=BUILD, check=True)

    once(VENV / ".installed", f"{HUB} {PROXY_PACKAGE}", build)
    hub = subprocess.run([str(VENV / "bin" / "jupyterhub"), "--version"], capture_output=True,
                         text=True).stdout
    proxy = subprocess.run([str(PROXY), "--version"], capture_output=True, text=True).stdout
    return f"jupyterhub {hub.strip()}, configurable-http-proxy {proxy.strip()}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Hub:
    """The workshop's JupyterHub on free loopback ports, state in `state`, more WORKSHOP_*
    `settings` if given; every process it started is found by a marker in its environment and
    stopped by id."""

    def __init__(self, state: Path, settings: dict | None = None):
        self.state = state
        self.marker = uuid.uuid4().hex
        self.url = f"http://127.0.0.1:{free_port()}"
        config = state / "bench_config.py"
        config.write_text(
            f"load_subconfig({str(CONFIG)!r})\n"
            f"c.JupyterHub.hub_bind_url = 'http://127.0.0.1:{free_port()}'\n"
            f"c.ConfigurableHTTPProxy.api_url = 'http://127.0.0.1:{free_port()}'\n"
            f"c.Spawner.environment.update({{'WORKSHOP_BENCH': {self.marker!r}}})\n")
        env = {**os.environ, "WORKSHOP_PASSWORD": PASSWORD, "WORKSHOP_URL": self.url,
               "WORKSHOP_STATE": str(state),
               "WORKSHOP_PROXY": str(PROXY), "WORKSHOP_BENCH": self.marker, **(settings or {}),
               "PATH": f"{VENV / 'bin'}:{os.environ['PATH']}"}
        env.pop("ANTHROPIC_API_KEY", None)
        self.log = (state / "hub.log").open("w")
        self.process = subprocess.Popen([str(VENV / "bin" / "jupyterhub"), "-f", str(config)],
                                        cwd=state, env=env,
                                        stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def wait(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the hub exited ({self.process.returncode}); see "
                                   f"{self.state / 'hub.log'}")
            try:
                if httpx2.get(f"{self.url}/hub/health", timeout=2).status_code == 200:
                    return
            except httpx2.TransportError:
                pass
            time.sleep(0.5)
        raise RuntimeError("the hub did not answer in time")

    def processes(self) -> list[int]:
        """Ids of the processes this hub started (the proxy, servers, kernels), the hub itself
        first."""
        found = [self.process.pid]
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != self.process.pid:
                try:
                    if f"WORKSHOP_BENCH={self.marker}".encode() in (entry / "environ").read_bytes():
                        found.append(int(entry.name))
                except OSError:
                    pass
        return found

    def stop(self) -> None:
        pids = self.processes()
        self.process.send_signal(signal.SIGTERM)  # the hub stops the students' servers as it exits
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=60)
        for pid in pids:  # whatever is left, by id
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.process.wait()
        self.log.close()


def memory(pid: int) -> dict:
    """Resident and unique (private) memory of one process in MB, and its CPU seconds so far."""
    rollup = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        rollup[name] = int(value.split()[0]) / 1024
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    return {"rss": rollup["Rss"], "uss": rollup["Private_Clean"] + rollup["Private_Dirty"],
            "cpu": cpu}


def role(pid: int) -> tuple[str | None, str]:
    """(student, "server" or "kernel") of a process started by the hub; (None, what) for the hub's
    own."""
    environ = dict(item.split("=", 1)
                   for item in Path(f"/proc/{pid}/environ").read_text().split("\0") if "=" in item)
    cmdline = Path(f"/proc/{pid}/cmdline").read_text()
    if "ipykernel" in cmdline:
        return environ.get("JUPYTERHUB_USER"), "kernel"
    if "JUPYTERHUB_USER" in environ:
        return environ["JUPYTERHUB_USER"], "server"
    return None, "proxy" if "configurable-http-proxy" in cmdline else "hub"


def mem_available_gb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024 / 1024
    raise RuntimeError("no MemAvailable in /proc/meminfo")


def code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


async def student(hub: Hub, name: str, cells: list[str]) -> dict:
    """One student, as a browser: log in, wait for the server, open the lesson, run its cells. Times
    in seconds."""
    started = time.monotonic()
    async with httpx2.AsyncClient(base_url=hub.url, follow_redirects=True,
                                  timeout=CELL_TIMEOUT) as http:
        await http.get("/hub/login")
        page = await http.post(
            "/hub/login",
            data={
                "username": name,
                "password": PASSWORD,
                "_xsrf": http.cookies.get("_xsrf", path="/hub/"),
            },
        )
        if page.status_code != 200 or "/hub/login" in str(page.url):
            raise RuntimeError(f"login failed: {page.status_code} {page.url}")
        logged_in = time.monotonic()
        headers = {"X-XSRFToken": http.cookies.get("_xsrf", path="/hub/")}
        while (
            not (await http.get(f"/hub/api/users/{name}", headers=headers))
            .json()
            .get("servers", {})
            .get("", {})
            .get("ready")
        ):
            if time.monotonic() - started > CELL_TIMEOUT:
                raise RuntimeError("the server did not start in time")
            await asyncio.sleep(0.5)
        lab = await http.get(f"/user/{name}/lab")  # the OAuth round trip sets the server's cookies
        if lab.status_code != 200:
            raise RuntimeError(f"JupyterLab answered {lab.status_code}")
        server_ready = time.monotonic()
        xsrf = {"X-XSRFToken": http.cookies.get("_xsrf", path=f"/user/{name}/")}
        session = (await http.post(f"/user/{name}/api/sessions", headers=xsrf, json={
            "path": LESSON, "type": "notebook", "name": Path(LESSON).name,
            "kernel": {"name": "python3"}})).json()
        cookie = "; ".join(f"{c.name}={c.value}" for c in http.cookies.jar)
    ws_url = hub.url.replace("http", "ws") + (f"/user/{name}/api/kernels/{session['kernel']['id']}/"
                                              "channels")
    request = HTTPRequest(f"{ws_url}?session_id={uuid.uuid4().hex}",
                          headers={"Cookie": cookie, **xsrf},
                          # a busy room is slow
                          connect_timeout=CELL_TIMEOUT, request_timeout=CELL_TIMEOUT)
    socket_ = await websocket_connect(request)
    last_output, errors, printed = started, [], []
    try:
        for k, source in enumerate(cells):
            msg_id = uuid.uuid4().hex
            socket_.write_message(json.dumps({
                "channel": "shell",
                "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": name,
                                               "username": name, "version": "5.3"},
                "parent_header": {}, "metadata": {}, "buffers": [],
                "content": {"code": source, "silent": False, "store_history": True,
                            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
            idle = replied = False
            while not (idle and replied):
                raw = await asyncio.wait_for(socket_.read_message(), CELL_TIMEOUT)
                if raw is None:
                    raise RuntimeError(f"the kernel's websocket closed during cell {k}")
                msg = json.loads(raw)
                if msg.get("parent_header", {}).get("msg_id") != msg_id:
                    continue
                kind = msg["header"]["msg_type"]
                if kind in ("stream", "display_data", "execute_result", "error"):
                    last_output = time.monotonic()
                if kind == "stream":
                    printed.append(msg["content"]["text"])
                if kind == "error":
                    errors.append(f"cell {k}: {msg['content']['ename']}")
                idle = idle or (kind == "status" and msg["content"]["execution_state"] == "idle")
                replied = replied or kind == "execute_reply"
    finally:
        socket_.close()
    return {"login_s": logged_in - started, "server_s": server_ready - started,
            "last_output_s": last_output - started, "errors": errors, "printed": "".join(printed)}


async def room(hub: Hub, n: int, cells: list[str]) -> list:
    """N students arriving at once; each one's figures or the exception that stopped them."""
    return await asyncio.gather(*(student(hub, f"student{k:03d}", cells) for k in range(n)),
                                return_exceptions=True)


def run_step(n: int, cells: list[str]) -> dict:
    """One room of N students on a fresh hub: times, failures, memory and CPU per student."""
    with tempfile.TemporaryDirectory(prefix="workshop-bench-") as tmp:
        hub = Hub(Path(tmp))
        try:
            hub.wait()
            before = mem_available_gb()
            results = asyncio.run(room(hub, n, cells))
            after = mem_available_gb()
            per: dict[str, dict] = {}
            own: dict[str, float] = {}
            for pid in hub.processes():
                try:
                    who, what = role(pid)
                    figures = memory(pid)
                except (OSError, ValueError):
                    continue  # ended meanwhile
                if who is None:
                    own[what] = own.get(what, 0) + figures["rss"]
                    continue
                slot = per.setdefault(who, {"server_rss": 0, "kernel_rss": 0, "uss": 0, "cpu": 0})
                slot[f"{what}_rss"] += figures["rss"]
                slot["uss"] += figures["uss"]
                slot["cpu"] += figures["cpu"]
        finally:
            hub.stop()
    done = [r for r in results if isinstance(r, dict) and not r["errors"]]
    failures = [repr(r)[:200] if not isinstance(r, dict) else "; ".join(r["errors"])[:200]
                for r in results if not (isinstance(r, dict) and not r["errors"])]

    def median(key, rows):
        return statistics.median(r[key] for r in rows) if rows else None

    students = list(per.values())
    return {"students": n, "ok": len(done), "failures": len(failures),
            "failure_examples": sorted(set(failures))[:3],
            "login_to_server_s": median("server_s", done),
            "login_to_last_output_median_s": median("last_output_s", done),
            "login_to_last_output_max_s": max((r["last_output_s"] for r in done), default=None),
            "server_rss_mb": median("server_rss", students),
            "kernel_rss_mb": median("kernel_rss", students),
            "unique_mb": median("uss", students), "cpu_s": median("cpu", students),
            "hub_and_proxy_rss_mb": sum(own.values()), "mem_available_drop_gb": before - after}


def bench_workshop(steps: tuple[int, ...] = STEPS) -> dict:
    """Rooms of growing size until one fails or the machine would run short of memory."""
    # a stopped benchmark still stops its hub
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("stopped"))
    versions = install()
    cells = code_cells(ROOT / LESSON)
    rows, stopped = [], None
    for n in steps:
        if rows and rows[-1]["unique_mb"]:
            need = n * rows[-1]["unique_mb"] / 1024
            if mem_available_gb() - need < MARGIN_GB:
                stopped = (f"{n} students not tried: they would need about {need:.1f} GB and leave "
                           f"less than {MARGIN_GB:g} GB for the machine's other users "
                           f"({mem_available_gb():.1f} GB available)")
                break
        print(f"  {n} students...", file=sys.stderr, flush=True)
        rows.append(run_step(n, cells))
        if rows[-1]["failures"]:
            stopped = f"{n} students: {rows[-1]['failures']} failed"
            break
    best = max((r for r in rows if not r["failures"]), key=lambda r: r["students"], default=None)
    return {"versions": versions, "lesson": LESSON, "cells": len(cells), "cores": os.cpu_count(),
            "memory_gb": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024 ** 3,
            "load": os.getloadavg()[0], "rows": rows, "stopped": stopped,
            "largest_room_without_failure": best["students"] if best else 0,
            "targets": {"a room of 80 on this machine without a failure": bool(
                best and best["students"] >= 80)}}


def table(figures: dict) -> str:
    """The figures as a Markdown table."""
    lines = [f"{figures['versions']}; lesson `{figures['lesson']}` ({figures['cells']} code "
             f"cells); {figures['cores']} cores, {figures['memory_gb']:.0f} GB, shared with other "
             f"jobs (load average {figures['load']:.1f} at the end).", "",
             "| students | ok | failed | login to server ready s | login to last output s (median "
             "/ max) | server MB | kernel MB | unique MB | CPU s | hub + proxy MB | MemAvailable "
             "drop GB |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def f(value, digits=1):
        return "-" if value is None else f"{value:.{digits}f}"

    for r in figures["rows"]:
        lines.append(f"| {r['students']} | {r['ok']} | {r['failures']} | "
                     f"{f(r['login_to_server_s'])} | {f(r['login_to_last_output_median_s'])} / "
                     f"{f(r['login_to_last_output_max_s'])} | {f(r['server_rss_mb'], 0)} | "
                     f"{f(r['kernel_rss_mb'], 0)} | {f(r['unique_mb'], 0)} | {f(r['cpu_s'])} | "
                     f"{f(r['hub_and_proxy_rss_mb'], 0)} | {f(r['mem_available_drop_gb'], 2)} |")
    if figures["stopped"]:
        lines += ["", f"Stopped: {figures['stopped']}."]
    for r in figures["rows"]:
        if r["failure_examples"]:
            lines.append(f"- {r['students']} students, failures: "
                         f"{'; '.join(r['failure_examples'])}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table(bench_workshop(tuple(int(n) for n in sys.argv[1:]) or STEPS)))
