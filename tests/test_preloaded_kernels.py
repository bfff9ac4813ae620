"""The notebooks' pass forks its kernels from one that preloaded the SDK
(tests/preloaded_kernels.py): each must still be the kernel jupyter_client asked for, in its folder
and environment, interruptible, and gone with its launcher."""
from __future__ import annotations

import json
import os
import time

import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from preloaded_kernels import KERNEL_NAME, start


@pytest.fixture(scope="module")
def specs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("preloaded")
    zygote = start(str(folder))
    yield KernelSpecManager(kernel_dirs=[str(folder / "kernels")])
    zygote.stdin.close()
    zygote.wait()


@pytest.fixture
def kernel(specs, tmp_path):
    manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs)
    # the zygote has this process's environment (COURSE_LANG among it: tests/conftest.py); the
    # kernel has its launcher's only
    env = {name: value for name, value in os.environ.items() if name != "COURSE_LANG"}
    manager.start_kernel(cwd=str(tmp_path), env={**env, "COURSE_MARK": "from the launcher"})
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=30)
    yield manager, client
    client.stop_channels()
    if manager.is_alive():
        manager.shutdown_kernel(now=True)


def run(client, code: str, timeout: float = 30) -> tuple[dict, str]:
    """The execute reply's content and what the cell printed."""
    printed: list[str] = []

    def keep(msg: dict) -> None:
        printed.append(msg["content"].get("text", ""))

    reply = client.execute_interactive(code, timeout=timeout, output_hook=keep)
    return reply["content"], "".join(printed)


def test_a_forked_kernel_has_its_launchers_folder_environment_and_path_and_only_the_sdk_preloaded(
        kernel, tmp_path):
    _, client = kernel
    _, printed = run(client, "import json, os, signal, sys\n"
                             "print(json.dumps([os.getcwd(), os.environ.get('COURSE_MARK'), "
                             "os.environ.get('COURSE_LANG'), "
                             "sys.path[0], 'anthropic' in sys.modules, 'course' in sys.modules, "
                             "signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL]))")
    assert json.loads(printed) == [str(tmp_path), "from the launcher", None, str(tmp_path), True,
                                   False, True]


def test_a_forked_kernel_is_interrupted_through_its_launcher(kernel):
    manager, client = kernel
    asked = client.execute("import time; time.sleep(60)")
    time.sleep(1)
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=10)
    while reply["parent_header"]["msg_id"] != asked:  # the replies to wait_for_ready's requests
        reply = client.get_shell_msg(timeout=10)
    assert (reply["content"]["status"], reply["content"].get("ename")) == ("error",
                                                                           "KeyboardInterrupt")


def test_a_forked_kernel_exits_when_its_launcher_is_killed(kernel):
    manager, client = kernel
    _, printed = run(client, "import os; print(os.getpid())")
    pid = int(printed)
    manager.provisioner.process.kill()  # SIGKILL: the launcher cannot pass it on
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.05)
    assert not os.path.exists(f"/proc/{pid}")
