"""One worker as the grader sees it: JSON lines over its socket, ended through the fork server."""
from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import TYPE_CHECKING

from ....i18n import tr

if TYPE_CHECKING:
    from .fork_server import ForkServer

MAX_REPLY = 8 << 20  # bytes of one reply from a worker; more is refused


class Gone(Exception):
    """The worker was killed or died; the message says how."""

    def __init__(self, message: str, timed_out: bool = False):
        super().__init__(message)
        self.timed_out = timed_out


class Worker:
    """One forked worker: JSON lines over its socket, killed with its whole process group, its
    folder removed."""

    def __init__(self, pid: int, sock: socket.socket, uid: int | None, folder: Path,
                 server: ForkServer):
        self.pid, self.sock, self.uid, self.folder, self.server = pid, sock, uid, folder, server
        self.reader = sock.makefile("rb")
        self.ended = False

    def request(self, message: dict | None, timeout: float) -> dict:
        """Send a message (None: nothing) and wait for the worker's next one; raises Gone (after
        killing the worker) on a failure."""
        try:
            self.sock.settimeout(timeout)
            if message is not None:
                self.sock.sendall(json.dumps(message).encode() + b"\n")
            line = self.reader.readline(MAX_REPLY)
        except TimeoutError:
            self.kill()
            raise Gone("timed out", timed_out=True) from None
        except OSError as e:
            self.kill()
            raise Gone(tr("the process ended ({error})").format(error=e.strerror or e)) from None
        if not line:
            self.kill()
            raise Gone(tr("the process ended during the call (os._exit()? a crash? the memory "
                          "limit?)"))
        if not line.endswith(b"\n"):
            self.kill()
            raise Gone(
                tr("the reply was larger than {megabytes} MB").format(megabytes=MAX_REPLY >> 20))
        try:
            answer = json.loads(line)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            self.kill()
            raise Gone(tr("the process sent something that is not a result (did the code write to "
                          "the grader's channel?)"))
        return answer

    def kill(self) -> None:
        """End the worker and every process it started, remove its folder; returns once they are
        gone."""
        if not self.ended:
            self.ended = True
            self.sock.close()
            self.server.end(self)
