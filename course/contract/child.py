"""The student's side of grading, a standalone script: it imports nothing from `course.grading`.

The grader copies this file into a temp folder and runs it as `python -I -S -B child.py FD SITE...`:
a fork server that imports the SDK once, then forks one worker per exercise on request (the
request carries the worker's socket). A worker applies its limits, executes the submission's
cells as plain Python (no IPython: `get_ipython()` is a stub) one top-level statement at a time,
announcing each (so the grader knows where a process that died or hung was) and interrupting a
cell that runs past its time limit, then answers calls of the student's function, one JSON line
in, one JSON line out. The notebook's in-process `check()` imports `decode` and `invoke` from
here, so both sides build arguments and values the same way. What it says is in the submission's
language (COURSE_LANG, which a worker sets from the grader's message: the sandbox scrubs the
environment).
"""
from __future__ import annotations

import ast
import asyncio
import contextlib
import ctypes
import dataclasses
import fcntl
import http.client
import inspect
import io
import json
import os
import re
import resource
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.parse

OUTPUT_CAP = 20_000  # characters of printed output kept per call
PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 38, 36  # prctl options (linux/prctl.h)
# unshare flags (linux/sched.h)
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_REC, MS_PRIVATE = 2, 4, 1 << 14, 1 << 18  # mount flags (linux/mount.h)
# an interface's flags (linux/sockios.h, linux/if.h)
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 1
TLS = None  # one TLS context, made once by the fork server: building one costs ~0.2 s per client
MAGIC = re.compile(r"^(\s*)([%!].*)$", re.MULTILINE)  # IPython magics and shell escapes


def tr(message: str) -> str:
    """`message` in the language of the course (course.i18n), or as it is where the course cannot be
    imported."""
    try:
        from course.i18n import tr as translate
    except ImportError:
        return message
    return translate(message)


class Capped(io.TextIOBase):
    """A text stream keeping the first OUTPUT_CAP characters and dropping the rest."""

    def __init__(self):
        self.parts, self.size, self.dropped = [], 0, False

    def writable(self) -> bool:
        return True

    def write(self, s) -> int:
        s = str(s)
        room = OUTPUT_CAP - self.size
        if len(s) > room:
            self.dropped = True
        self.parts.append(s[:max(room, 0)])
        self.size += min(len(s), max(room, 0))
        return len(s)

    def text(self) -> str:
        return "".join(self.parts) + ("\n" + tr("[output truncated]") if self.dropped else "")


def describe(e: BaseException) -> str:
    """'Type: message', naming how the function left when it exited instead of returning."""
    if isinstance(e, SystemExit):
        return "SystemExit: " + tr("the code called sys.exit()/exit() (code {code!r})").format(
            code=e.code)
    return f"{type(e).__name__}: {e}"[:2000]


def _dump(obj):
    if hasattr(obj, "model_dump"):  # SDK objects (pydantic models) as the API's JSON
        return obj.model_dump(mode="json", exclude_none=True)
    # the Agent SDK's messages: their fields
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    raise TypeError(f"a {type(obj).__name__} cannot be sent as JSON")


def plain(value):
    """The value after a JSON round trip: only dicts, lists, str, numbers, bools and None come
    back."""
    return json.loads(json.dumps(value, default=_dump))


MODEL_SECONDS = 10  # what one response takes on the grader's clock


def model_clock(client):
    """The grader's clock: MODEL_SECONDS per response `client` has received, nothing for anything
    else."""
    answered = []
    client._client.event_hooks["response"].append(lambda response: answered.append(1))
    return lambda: MODEL_SECONDS * len(answered)


def decode(args: list, kwargs: dict, client, run_tool, agent=None) -> tuple[list, dict]:
    """Arguments tagged by the grader (["client"], ["run_tool"], ["clock"], ["agent_options", spec],
    ["value", v]) as real objects; `agent(spec)` makes the Agent SDK's options."""
    clock = model_clock(client) if ["clock"] in args + list(kwargs.values()) else None
    made = {"client": client, "run_tool": run_tool, "clock": clock}

    def one(tagged):
        if tagged[0] == "agent_options":
            return agent(tagged[1])
        return tagged[1] if tagged[0] == "value" else made[tagged[0]]

    return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


def snapshot(tagged_args: list, tagged_kwargs: dict, args: list, kwargs: dict) -> dict | None:
    """The arguments the grader gave as data, as they are after the call (a function may change its
    input in place); the client and run_tool are None. A snapshot larger than the output cap is
    None."""
    def one(tagged, value):
        if tagged[0] != "value":
            return None
        try:
            return plain(value)
        except (TypeError, ValueError, RecursionError):
            return repr(value)[:200]

    after = {"args": [one(t, a) for t, a in zip(tagged_args, args, strict=True)],
             "kwargs": {k: one(tagged_kwargs[k], v) for k, v in kwargs.items()}}
    return after if len(json.dumps(after)) <= OUTPUT_CAP else None


def invoke(fn, args: list, kwargs: dict) -> dict:
    """Call fn; {"value", "error", "stdout"} as plain data. Never raises (SystemExit included)."""
    out = Capped()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        value, error = fn(*args, **kwargs), None
        # an async function: run to its end, as a notebook's await would
        if inspect.iscoroutine(value):
            value = asyncio.run(value)
        try:
            value = plain(value)
        except (TypeError, ValueError, RecursionError) as e:
            value, error = None, tr("the return value cannot be sent as JSON: {error}").format(
                error=describe(e))
    except BaseException as e:  # noqa: B036
        # the student's exit(), KeyboardInterrupt and timeouts are results too
        value, error = None, describe(e)
    finally:
        # the streams back, unless a later call has them: an abandoned call (timed out) ends here
        # late
        if sys.stdout is out:
            sys.stdout = saved[0]
        if sys.stderr is out:
            sys.stderr = saved[1]
    return {"value": value, "error": error, "stdout": out.text()}


class ToolFailed(RuntimeError):
    """What RUN_TOOL raises when the tool's result is an error: the student's loop turns it into
    is_error."""


def tool_answer(content: str, is_error: bool) -> str:
    """What RUN_TOOL gives the student: the tool's output, or ToolFailed carrying the error
    result."""
    if is_error:
        raise ToolFailed(content)
    return content


class GraderConnection(http.client.HTTPConnection):
    """HTTP to the grader's API over its Unix socket, the one way out of a worker (it has no
    network)."""

    def __init__(self, socket_path: str, timeout: float):
        super().__init__("grader", timeout=timeout)
        self.socket_path = socket_path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.socket_path)


def remote_tool(socket_path: str, path: str):
    """A tool run by the grader (which records the call): run(name, input) -> (content,
    is_error)."""
    def run(name, input):
        connection = GraderConnection(socket_path, 60)
        try:
            connection.request("POST", path, json.dumps({"name": name, "input": input}).encode(),
                               {"content-type": "application/json"})
            answer = json.loads(connection.getresponse().read())
        finally:
            connection.close()
        return answer["content"], answer["is_error"]

    return run


def tool_proxy(socket_path: str, path: str):
    """RUN_TOOL in the child: the grader runs the tool (and records the call)."""
    run = remote_tool(socket_path, path)
    return lambda name, input: tool_answer(*run(name, input))


class RemoteTools:
    """A scenario's tools as course.agent_sdk.mcp_server reads a Toolbox: their definitions, each
    run by `run`."""

    def __init__(self, definitions: list[dict], run):
        self._definitions, self.run = definitions, run

    def definitions(self) -> list[dict]:
        return self._definitions


def agent_options(spec: dict, base_url: str, run, home: str):
    """AGENT_OPTIONS: the Agent SDK's ClaudeAgentOptions on the grader's API at `base_url`, the
    CLI's HOME and config in `home`, the scenario's tools as the in-process MCP server `course` (run
    by `run`), allowed without asking when spec["allow"]."""
    from course.agent_sdk import agent_options as options
    from course.agent_sdk import mcp_server

    allowed = [f"mcp__course__{d['name']}" for d in spec["tools"]] if spec["allow"] else []
    return options(base_url, home,
                   mcp_servers={"course": mcp_server(RemoteTools(spec["tools"], run))},
                   allowed_tools=allowed)


def pipe(source: socket.socket, target: socket.socket) -> None:
    """Bytes from source to target until source ends; then target hears the end."""
    try:
        while data := source.recv(1 << 16):
            target.sendall(data)
    except OSError:
        pass
    for s, how in ((target, socket.SHUT_WR), (source, socket.SHUT_RD)):
        with contextlib.suppress(OSError):
            s.shutdown(how)


class Loopback:
    """A TCP port on the worker's own loopback (under bubblewrap, a network namespace with nothing
    else), each connection piped to the grader's Unix socket: how a program that speaks only TCP,
    the Claude Code CLI, reaches the grader's API and nothing else."""

    def __init__(self, socket_path: str):
        self.socket_path = socket_path
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True, name="loopback").start()

    def url(self, base_url: str) -> str:
        """The grader's `base_url` (http://grader/call/<token>) as reached through this port."""
        return urllib.parse.urlsplit(base_url)._replace(netloc=f"127.0.0.1:{self.port}").geturl()

    def serve(self) -> None:
        while True:
            try:
                tcp, _ = self.listener.accept()
            except OSError:
                return
            unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                unix.connect(self.socket_path)
            except OSError:
                tcp.close()
                continue
            for a, b in ((tcp, unix), (unix, tcp)):
                threading.Thread(target=pipe, args=(a, b), daemon=True, name="pipe").start()


class IPythonStub:
    """get_ipython() in a graded cell: every method exists and does nothing (set_custom_exc
    included)."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def python_source(source: str) -> str:
    """A cell as plain Python: magics and shell escapes become comments."""
    return MAGIC.sub(lambda m: f"{m.group(1)}pass  # {m.group(2)}", source)


class Interrupted(BaseException):
    """Raised inside a cell by the timer when the cell runs past its time limit."""


def interrupt(signum, frame):
    raise Interrupted


def statements(source: str, i: int) -> list[tuple[int, types.CodeType]]:
    """A cell's top-level statements, each compiled alone: (its first line, its code)."""
    tree = ast.parse(python_source(source), f"<cell {i}>")
    return [(s.lineno, compile(ast.Module([s], []), f"<cell {i}>", "exec")) for s in tree.body]


def execute(cells: list[str], seconds: float, stops: dict,
            progress) -> tuple[dict, list[str], list[dict]]:
    """Run the cells in one namespace, as a script would, each cell interrupted after `seconds` and
    cell i stopped before its statement stops[i]; progress(i, j, line) before each statement. The
    namespace, each failing cell's error, and the cells cut short ({"cell", "why"}: ran past the
    limit, or called sys.exit())."""
    namespace = {"__name__": "__main__", "get_ipython": IPythonStub, "display": print,
                 "exit": sys.exit, "quit": sys.exit}
    errors, cut = [], []
    signal.signal(signal.SIGALRM, interrupt)

    def run(i: int, source: str) -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            for j, (line, code) in enumerate(statements(source, i)[:stops.get(i)]):
                progress(i, j, line)
                exec(code, namespace)
        except Interrupted:
            cut.append({"cell": i, "why": tr("ran past {seconds:g} s and was skipped").format(
                seconds=seconds)})
        except SystemExit as e:
            cut.append({"cell": i, "why": tr("called sys.exit()/exit() (code {code!r}) and was "
                                             "skipped").format(
                code=e.code)})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    for i, source in enumerate(cells, 1):
        result = invoke(run, [i, source], {})
        if result["error"]:
            errors.append(tr("cell {cell}: {error}").format(cell=i, error=result["error"]))
    return namespace, errors, cut


class Channel:
    """One JSON object per line over the worker's socket."""

    def __init__(self, sock: socket.socket):
        self.reader, self.writer = sock.makefile("rb"), sock.makefile("wb")

    def receive(self):
        line = self.reader.readline()
        return json.loads(line) if line else None

    def send(self, obj) -> None:
        self.writer.write(json.dumps(obj).encode() + b"\n")
        self.writer.flush()

    def progress(self, i: int, j: int, line: int) -> None:
        """Where the cells are, sent whole: the cell's timer waits until the line is written."""
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
        try:
            self.send({"at": [i, j, line]})
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def address_space() -> int:
    """Bytes of address space this process maps now (the SDK is already imported)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def apart(folder: str, uid: int, space: dict) -> None:
    """Namespaces of this worker's own (the fork server keeps CAP_SYS_ADMIN and CAP_NET_ADMIN for
    this alone): a network namespace whose loopback is up and holds nothing of another worker's (TCP
    ports, abstract Unix sockets), an IPC namespace (SysV IPC, freed with the worker), and a mount
    namespace where `folder` is a tmpfs of `space["disk"]` bytes and `space["inodes"]` files, owned
    by `uid`."""
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            raise OSError(ctypes.get_errno(), f"{what} failed")

    check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    check(libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
    options = (
        f"size={space['disk']},nr_inodes={space['inodes']},mode=700,uid={uid},gid={uid}".encode()
    )
    check(libc.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, options),
          "mounting the folder")
    # loopback up: a new namespace starts it down
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH", fcntl.ioctl(s, SIOCGIFFLAGS, request)[:18])[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))


M_ARENA_MAX = -8  # glibc's mallopt option: how many malloc arenas the threads of a process share


def join(group: str) -> None:
    """Move this worker into a cgroup of its own, `group` (made here, in the batch's: an equal CPU
    share per worker, however many processes it starts; they inherit it, and once it drops to its
    uid it cannot leave)."""
    os.mkdir(group)
    with open(os.path.join(group, "cgroup.procs"), "w") as f:
        f.write("0")  # this process


def limit(limits: dict, uid: int | None, folder: str, space: dict | None = None,
          group: str | None = None) -> None:
    """The worker's limits (the grader's Budget): `memory` bytes more address space, `cpu` seconds
    of CPU per process (an orphan of a killed grader cannot spin forever), `file` bytes per file, no
    core dumps, `processes` processes of its user; its `folder` (mode 700), with `space` a tmpfs in
    namespaces of its own (see apart); with `group`, a cgroup of its own (an equal CPU share);
    then, when the grader runs as root, a user of its own without rights, who owns the folder, which
    no later privilege can undo."""
    # a thread then costs its stack, not 64 MiB more of address space
    ctypes.CDLL(None).mallopt(M_ARENA_MAX, 2)
    total = address_space() + limits["memory"]
    for which, value in ((resource.RLIMIT_AS, total), (resource.RLIMIT_CPU, limits["cpu"]),
                         (resource.RLIMIT_FSIZE, limits["file"]), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_NPROC, limits["processes"])):
        resource.setrlimit(which, (value, value))
    os.mkdir(folder, 0o700)
    if group:
        join(group)
    if space and uid is not None:
        apart(folder, uid, space)
    if uid is not None:
        os.chown(folder, uid, uid)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    prctl(PR_SET_NO_NEW_PRIVS, 1)


def prctl(option: int, value: int) -> None:
    if ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def worker(sock: socket.socket) -> None:
    """Set up from the first message (the cells, their time limit, where to stop cells that killed
    or hung an earlier worker), run the cells, then answer calls until the grader hangs up."""
    channel = Channel(sock)
    setup = channel.receive()
    limit(setup["limits"], setup.get("uid"), setup["dir"], setup.get("space"), setup.get("cgroup"))
    os.chdir(setup["dir"])
    os.environ["HOME"] = os.environ["TMPDIR"] = setup["dir"]
    # the submission's language, for what the course says
    os.environ["COURSE_LANG"] = setup.get("lang", "en")
    # a runner: files of a workspace, one at a time, for the grader's run_python tool
    if "run" in setup:
        job, runs = setup["run"], 0
        while job is not None:
            runs += 1
            channel.send(run_file(os.path.join(setup["dir"], f"run{runs}"), **job))
            job = channel.receive()
        return
    namespace, errors, cut = execute(setup["cells"], setup["cell"], dict(setup["stops"]),
                                     channel.progress)
    fn = namespace.get(setup["function"])
    channel.send({"ready": callable(fn), "errors": errors, "cut": cut})
    loopback = None  # made for the first call that runs the Claude Code CLI
    while callable(fn) and (call := channel.receive()) is not None:
        client = sdk_client(setup["socket"], call["base_url"], call["timeout"]) if call.get(
            "base_url") else None

        def agent(spec, call=call):
            nonlocal loopback
            loopback = loopback or Loopback(setup["socket"])
            return agent_options(spec, loopback.url(call["base_url"]),
                                 remote_tool(setup["socket"], call["tool_path"]),
                                 tempfile.mkdtemp(prefix="home", dir=setup["dir"]))

        args, kwargs = decode(call["args"], call["kwargs"], client,
                              tool_proxy(setup["socket"], call["tool_path"]), agent)
        result = invoke(fn, args, kwargs)
        channel.send({**result, "after": snapshot(call["args"], call["kwargs"], args, kwargs)})


def run_file(folder: str, files: dict, path: str, timeout: float) -> dict:
    """run_python's work, in this runner: the workspace's files written to a new `folder`, `path`
    run there with Python; its exit code (-1: timed out) and its first OUTPUT_CAP characters of
    output, with the folder's name taken out. Whatever it started is killed and the folder
    removed."""
    os.mkdir(folder, 0o700)
    for name, content in files.items():
        target = os.path.join(folder, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(content)
    proc = subprocess.Popen([sys.executable, "-E", "-S", path], cwd=folder,
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={"PYTHONHASHSEED": "0"}, start_new_session=True)
    kept, dropped, deadline = bytearray(), False, time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        # stdout=PIPE: never None
        selector.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        while (left := deadline - time.monotonic()) > 0 and selector.select(left):
            # stdout=PIPE: never None
            chunk = os.read(proc.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not chunk:
                break
            dropped |= len(kept) + len(chunk) > OUTPUT_CAP * 4
            kept += chunk[:max(OUTPUT_CAP * 4 - len(kept), 0)]  # bytes: at most 4 per character
    timed_out = proc.poll() is None and time.monotonic() >= deadline
    # what it left behind goes too (the fork server kills the rest)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    code = proc.wait()
    shutil.rmtree(folder, ignore_errors=True)
    text = kept.decode("utf-8", "replace")
    output = text[:OUTPUT_CAP] + ("\n" + tr("[output truncated]") if dropped
                                  or len(text) > OUTPUT_CAP else "")
    return {"code": -1 if timed_out else code, "output": output.replace(folder + "/", "")}


def sdk_client(socket_path: str, base_url: str, timeout: float):
    """The genuine SDK client on the grader's API, over its Unix socket (no retries: every request
    is the student's)."""
    import anthropic
    import httpx2

    transport = httpx2.HTTPTransport(uds=socket_path, verify=TLS or True)
    return anthropic.Anthropic(api_key="grader", base_url=base_url, max_retries=0, timeout=timeout,
                               http_client=anthropic.DefaultHttpxClient(transport=transport))


WARM_MESSAGE = {"id": "msg_warm", "type": "message", "role": "assistant", "model": "warm",
                "stop_reason": "tool_use",
                "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1},
                "content": [{"type": "thinking", "thinking": "", "signature": ""},
                            {"type": "redacted_thinking", "data": ""}, {"type": "text", "text": ""},
                            {"type": "tool_use", "id": "toolu_warm", "name": "t", "input": {}}]}
WARM_EVENTS = [("message_start", {"message": {**WARM_MESSAGE, "content": [], "stop_reason": None}}),
               ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}}),
               ("content_block_delta",
                {"index": 0, "delta": {"type": "text_delta", "text": "warm"}}),
               ("content_block_stop", {"index": 0}),
               ("message_delta", {"delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                  "usage": {"output_tokens": 1}}),
               ("message_stop", {})]


def warm_replies() -> None:
    """Parse a reply of every block type, plain and streamed, and dump it as a result is sent: the
    SDK builds its pydantic models' schemas on first use, which would otherwise cost every forked
    worker that calls the API."""
    import anthropic
    import httpx2

    def answer(request):
        if json.loads(request.content).get("stream"):
            events = "".join(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"
                             for kind, data in WARM_EVENTS)
            return httpx2.Response(200, headers={"content-type": "text/event-stream"},
                                   content=events.encode())
        return httpx2.Response(200, json=WARM_MESSAGE)

    client = anthropic.Anthropic(api_key="warm", base_url="http://warm", max_retries=0,
                                 http_client=httpx2.Client(transport=httpx2.MockTransport(answer)))
    messages: list = [{"role": "user", "content": "warm"}]
    plain(client.messages.create(model="warm", max_tokens=1, messages=messages))
    with client.messages.stream(model="warm", max_tokens=1, messages=messages) as stream:
        "".join(stream.text_stream)
        plain(stream.get_final_message())


def preload() -> None:
    """Import the SDK and build one client, so that every forked worker starts warm."""
    global TLS
    try:
        import ssl

        import anthropic  # noqa: F401
    except ImportError:  # no SDK installed: workers still grade functions that do not use CLIENT
        return
    TLS = ssl.create_default_context()
    # the SDK's lazy imports happen here, once
    _ = sdk_client("/nonexistent", "http://grader", 1.0).messages.create
    warm_replies()
    try:  # what notebooks import first (course.grading here is the grader's stand-in)
        import course.client  # noqa: F401
        import course.loop  # noqa: F401
        import course.scenarios  # noqa: F401
    except ImportError:
        pass
    # lesson 14's: seconds on a loaded machine, in each of its workers else
    with contextlib.suppress(ImportError):
        import claude_agent_sdk  # noqa: F401


def fork_server(control: socket.socket, sweeper: Sweeper) -> None:
    """Answer the grader's requests, one at a time: "F" (carrying the worker's socket) forks a
    worker and answers its pid; "K pid uid folder" ends that worker and everything it started,
    removes its folder, then answers "ended"."""
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers are reaped by the kernel
    # what a worker starts and abandons (setsid, double fork) becomes ours
    prctl(PR_SET_CHILD_SUBREAPER, 1)
    workers: set[int] = set()
    while True:
        data, fds, _, _ = socket.recv_fds(control, 4096, 1)
        if not data:
            return
        if data.startswith(b"K"):
            _, ended, uid, folder = data.decode().split(" ", 3)
            workers.discard(int(ended))
            end(int(ended), None if uid == "-" else int(uid), folder, workers, sweeper)
            control.sendall(b"ended\n")
            continue
        pid = os.fork()
        if pid == 0:
            control.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            os.setsid()  # its own process group: the grader kills the whole group
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            # nothing of the fork server's reaches student code but its own socket
            os.closerange(3, fds[0])
            os.closerange(fds[0] + 1, 1 << 16)
            try:
                worker(socket.socket(fileno=fds[0]))
            finally:
                os._exit(0)
        os.close(fds[0])
        workers.add(pid)
        control.sendall(f"{pid}\n".encode())


def end(pid: int, uid: int | None, folder: str, workers: set[int], sweeper: Sweeper) -> None:
    """Kill worker `pid`'s process group; then every process of its own `uid` (a helper running as
    that uid kills them all, then removes the worker's folder: see sweep); then every child of ours
    that is not a live worker or the sweeper (orphans it left behind), until none; then the folder,
    when the workers share our uid."""
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(pid, signal.SIGKILL)
    if uid is not None:
        sweeper.sweep(uid, folder)
    for _ in range(10_000):
        orphans = [c for c in children() if c not in workers and c != sweeper.pid]
        if not orphans:
            break
        for child in orphans:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
    if uid is None:
        shutil.rmtree(folder, ignore_errors=True)


def sweep(uid: int, folder: str) -> None:
    """Kill every process of `uid` and remove `folder`, from a helper forked here that becomes
    `uid`; returns once the helper is gone."""
    done, signal_done = os.pipe()
    helper = os.fork()
    if helper == 0:
        os.close(done)
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        while processes(lambda status: f"\nUid:\t{uid}\t" in status):
            # every process this uid may signal, but not this one (Linux)
            os.kill(-1, signal.SIGKILL)
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(0)
    os.close(signal_done)
    os.read(done, 1)  # EOF once the helper has exited
    os.close(done)
    # reaped already where SIGCHLD is ignored (the fork server)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(helper, 0)


class Sweeper:
    """sweep() for the fork server, done by a process forked from it before it imports the SDK: the
    helper each sweep forks is then a copy of a small process (a copy of the fork server costs ~10
    ms of page tables). Should the sweeper be gone, the fork server sweeps itself."""

    def __init__(self):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid: int | None = os.fork()
        if self.pid == 0:
            os.closerange(3, theirs.fileno())  # nothing of the fork server's but its own socket
            os.closerange(theirs.fileno() + 1, 1 << 16)
            try:
                while request := theirs.recv(4096):  # "uid folder", one message each
                    uid, folder = request.decode().split(" ", 1)
                    sweep(int(uid), folder)
                    theirs.sendall(b"done")
            finally:
                os._exit(0)
        theirs.close()
        self.socket = ours

    def sweep(self, uid: int, folder: str) -> None:
        if self.pid is not None:
            try:
                self.socket.sendall(f"{uid} {folder}".encode())
                if self.socket.recv(16) == b"done":
                    return
            except OSError:
                pass
            self.pid = None
        sweep(uid, folder)


def children() -> list[int]:
    """This process's living children."""
    return processes(lambda status: f"\nPPid:\t{os.getpid()}\n" in status)


def processes(match) -> list[int]:
    """Living processes other than this one whose /proc status text `match` accepts."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as f:
                status = f.read()
        except OSError:
            continue
        if int(pid) != os.getpid() and "\nState:\tZ" not in status and match(status):
            found.append(int(pid))
    return found


def main(argv: list[str]) -> None:
    sys.path.extend(argv[1:])
    sweeper = Sweeper()  # before the SDK is imported
    preload()
    fork_server(socket.socket(fileno=int(argv[0])), sweeper)


if __name__ == "__main__":
    main(sys.argv[1:])
