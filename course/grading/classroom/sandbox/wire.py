"""The grader's mount: the trusted API every graded call talks to, in the grader's process, on a
Unix socket.

One `course.api.Server` on a Unix socket in the batch's scratch folder (bound into the sandbox,
which has no network) serves a Router: each call of a student's function gets its own recording
LocalAPI under /call/<token>/ (the SDK's base_url), and POST /call/<token>/tool runs the scenario's
tool for the student's RUN_TOOL, so the grader records the requests and the tool calls itself.
"""
from __future__ import annotations

import json
import re
import secrets
import threading
from pathlib import Path

from ....api import Server
from ....api.handler import Reply
from ....contract.call import Call

PREFIX = "/call/"
# JSON objects and arrays one request may hold (Claude Code's largest holds a few thousand)
MAX_CONTAINERS = 100_000
MAX_DEPTH = 256  # how deeply they may nest
STRING = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)  # a JSON string, escapes included
NOT_A_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")


def _json(status: int, body: dict) -> Reply:
    return Reply(status, {"content-type": "application/json"}, json.dumps(body).encode())


def oversized(body: bytes) -> str:
    """Why `body` is refused before it is parsed (more objects, or deeper, than a request needs), or
    "": counted on the bytes, so 6 MB of `{}` costs the grader no 2 million Python objects."""
    brackets = STRING.sub(b"", body).translate(None, NOT_A_BRACKET)
    if (
        brackets.count(b"{") + brackets.count(b"[") > MAX_CONTAINERS
        or len(brackets) > 2 * MAX_CONTAINERS
    ):
        return f"the request holds more than {MAX_CONTAINERS} JSON objects and arrays"
    depth = 0
    for b in brackets:
        depth += 1 if b in b"[{" else -1
        if depth > MAX_DEPTH:
            return f"the request nests JSON objects and arrays more than {MAX_DEPTH} deep"
    return ""


class Router:
    """Routes requests to the Call they belong to, by the unguessable token in the path."""

    def __init__(self):
        self._calls: dict[str, Call] = {}
        self._lock = threading.Lock()

    def handle(self, method: str, path: str, headers: dict, body: bytes) -> Reply:
        token, _, rest = path.removeprefix(PREFIX).partition("/")
        with self._lock:
            call = self._calls.get(token) if path.startswith(PREFIX) else None
        if call is None:
            return _json(404, {"type": "error", "error": {"type": "not_found_error",
                                                          "message": f"Not found: {path[:200]}"}})
        if why := oversized(body):
            return _json(400, {"type": "error",
                               "error": {"type": "invalid_request_error", "message": why}})
        if rest == "tool" and method == "POST":
            try:
                request = json.loads(body)
                content, is_error = call.run_tool(str(request["name"]), request["input"])
            except (ValueError, KeyError, TypeError):
                return _json(400, {"error": "expected {\"name\": ..., \"input\": {...}}"})
            return _json(200, {"content": content, "is_error": is_error})
        if call.api is None:
            return _json(404, {"type": "error", "error": {"type": "not_found_error",
                                                          "message": "this call has no API"}})
        return call.api.handle(method, "/" + rest, headers, body)

    def open(self, call: Call) -> str:
        token = secrets.token_urlsafe(16)
        with self._lock:
            self._calls[token] = call
        return token

    def close(self, token: str) -> None:
        with self._lock:
            self._calls.pop(token, None)


class Wire:
    """The Router behind a Server on the Unix socket `path`, each worker's user holding at most
    `connections` at once; use as a context manager."""

    def __init__(self, path: Path, connections: int):
        self.path = path
        self.router = Router()
        # a Router has .handle()
        self.server = Server(self.router, path=str(path), max_per_peer=connections)

    def urls(self, token: str) -> tuple[str, str]:
        """(the SDK's base_url, the tool endpoint's path) of one call."""
        return f"{self.server.base_url}{PREFIX}{token}", f"{PREFIX}{token}/tool"

    def __enter__(self) -> Wire:
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.stop()
