"""Kernels for the notebooks' strict nbval pass that start with the heavy third-party modules
already imported: a pytest plugin (`pytest -p tests.preloaded_kernels --nbval ...`, as make test's
notebooks pass does).

Every notebook gets its own fresh kernel, and each kernel's first cell used to spend about two
seconds of CPU importing the `anthropic` SDK (its ~1,500 pydantic models), IPython and matplotlib,
the same in every one of the pass's ~85 kernels. Here one process imports them once (a "zygote")
and forks a child for each kernel the notebooks ask for. Only third-party modules are preloaded:
the course's own code is imported fresh by each notebook, in the kernel's own environment, working
folder and arguments (those of the process jupyter_client starts, the "launcher", sent whole to the
zygote), so what the pass proves is unchanged.

The launcher is what jupyter_client starts and signals: it forwards an interrupt or a termination
to its kernel, and a kernel whose launcher is gone (killed) exits.
"""
from __future__ import annotations

import json
import os
import select
import signal
import socket
import struct
import sys

KERNEL_NAME = "course-preloaded"
# what ipykernel sets before a notebook's first cell, so matplotlib is imported as a kernel would
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
PRELOADED = ("anthropic", "ipykernel.kernelapp", "matplotlib.pyplot")


def launch(address: str, argv: list[str]) -> None:
    """Be the kernel jupyter_client started: have the zygote fork it with this process's
    arguments, working folder, environment and standard streams, and live as long as it does."""
    zygote = socket.socket(socket.AF_UNIX)
    zygote.connect(address)
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
    socket.send_fds(zygote, [struct.pack("!I", len(request))], [0, 1, 2])
    zygote.sendall(request)
    pid = int(zygote.makefile().readline())
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, lambda signum, frame: os.kill(pid, signum))
    while zygote.recv(1):  # the kernel holds the other end until it exits
        pass


def serve(address: str) -> dict:
    """Import the heavy modules, then fork a kernel for each launcher that connects; return (only
    in a forked child) what that launcher asked for. The zygote ends when its stdin closes (the
    pytest process that started it is gone)."""
    os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    for name in PRELOADED:
        __import__(name)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(address)
    listener.listen()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # kernels are reaped as they exit
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in readable:
            sys.exit(0)
        launcher, _ = listener.accept()
        header, fds, _, _ = socket.recv_fds(launcher, 4, 3)
        (size,) = struct.unpack("!I", header)
        body = b""
        while len(body) < size:
            body += launcher.recv(size - len(body))
        pid = os.fork()
        if pid == 0:
            listener.close()
            return {**json.loads(body), "fds": fds, "launcher": launcher}
        launcher.sendall(f"{pid}\n".encode())
        for fd in fds:
            os.close(fd)
        launcher.close()


def become_kernel(request: dict) -> None:
    """In the forked child: take the launcher's streams, folder, environment and arguments, as
    `python -m ipykernel_launcher` started there would, and run the kernel."""
    import threading

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the notebook's subprocesses are waited for
    for target, fd in zip((0, 1, 2), request["fds"], strict=True):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.path[0] = request["cwd"]  # `python -m` puts the working folder first
    sys.argv = ["ipykernel_launcher", *request["argv"]]
    launcher = request["launcher"]

    def exit_with_the_launcher() -> None:
        while launcher.recv(1):
            pass
        os._exit(1)

    threading.Thread(target=exit_with_the_launcher, daemon=True).start()
    from ipykernel import kernelapp

    kernelapp.launch_new_instance()


def start(folder: str):
    """Start a zygote listening in `folder` and write the kernel spec of its kernels there (a
    folder for JUPYTER_PATH); return the zygote's process, once it is ready."""
    import subprocess

    address = os.path.join(folder, "zygote")
    zygote = subprocess.Popen([sys.executable, __file__, "serve", address],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    if zygote.stdout.readline().strip() != "ready":
        raise RuntimeError(f"the preloaded kernels' zygote did not start (exit {zygote.wait()})")
    spec = os.path.join(folder, "kernels", KERNEL_NAME)
    os.makedirs(spec)
    with open(os.path.join(spec, "kernel.json"), "w") as file:
        json.dump({"argv": [sys.executable, "-S", __file__, "launch", address, "-f",
                            "{connection_file}"],
                   "display_name": "Python 3 (preloaded)", "language": "python"}, file)
    return zygote


def pytest_configure(config) -> None:
    """Start the zygote and have nbval use its kernels."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="preloaded-kernels-")
    config._preloaded_kernels = start(folder), folder
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        filter(None, [folder, os.environ.get("JUPYTER_PATH")]))
    config.option.nbval_kernel_name = KERNEL_NAME
    # which would win over the name; the forked kernels run this python too
    config.option.nbval_current_env = False


def pytest_unconfigure(config) -> None:
    import shutil

    zygote, folder = config._preloaded_kernels
    zygote.stdin.close()
    zygote.wait()
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1] == "launch":
        launch(sys.argv[2], sys.argv[3:])
    else:
        become_kernel(serve(sys.argv[2]))
