"""Mount 2: the handler behind a real HTTP server, for other processes: on loopback, or on a Unix
socket.

The server defends itself before the handler sees a request: a body larger than the API's limit is
refused from its Content-Length (413) without being read, a connection that sends nothing for
READ_TIMEOUT seconds is closed, and on a Unix socket each peer user holds at most `max_per_peer`
connections at once (more are closed unserved).
"""
from __future__ import annotations

import json
import os
import socket
import struct
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer, ThreadingMixIn, UnixStreamServer
from typing import Protocol

from .handler import MAX_REQUEST_BYTES, Reply

# seconds a connection may stay silent (idle, or mid-request) before it is closed
READ_TIMEOUT = 30.0
TOO_LARGE = json.dumps({"type": "error", "error": {"type": "request_too_large",
                                                   "message": "Request exceeds the maximum allowed "
                                                              "number of bytes."}})
BAD_LENGTH = json.dumps({"type": "error", "error": {"type": "invalid_request_error",
                                                    "message": "Content-Length is not a number of "
                                                               "bytes."}})


class _Quiet(BaseServer):
    daemon_threads = True
    # connections waiting to be accepted: a room of students connects at once
    request_queue_size = 128

    def serve_forever(self, poll_interval: float = 0.02) -> None:
        """Serve until shutdown(), which waits for the loop to look up: every 0.02 s, not every
        0.5 s (socketserver's default: half a second for every server a grader or a test stops)."""
        super().serve_forever(poll_interval)

    def handle_error(self, request, client_address):
        """A client that hung up (its timeout ran out) or fell silent is normal here, not worth a
        traceback."""
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class _HTTPServer(_Quiet, ThreadingHTTPServer):
    pass


class _UnixHTTPServer(_Quiet, ThreadingMixIn, UnixStreamServer):
    """HTTP on a Unix socket, at most `max_per_peer` connections open per peer uid (SO_PEERCRED)."""

    def __init__(self, path: str, handler, max_per_peer: int):
        super().__init__(path, handler)
        os.chmod(path, 0o666)  # workers run as users of their own
        self.max_per_peer = max_per_peer
        self._open: dict[socket.socket, int] = {}  # admitted connection -> its peer's uid
        self._lock = threading.Lock()

    def verify_request(self, request, client_address) -> bool:
        _, uid, _ = struct.unpack("3i",
                                  request.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        with self._lock:
            if sum(u == uid for u in self._open.values()) >= self.max_per_peer:
                return False
            self._open[request] = uid
            return True

    def shutdown_request(self, request) -> None:
        with self._lock:
            self._open.pop(request, None)
        super().shutdown_request(request)


class Handles(Protocol):
    """What a Server serves: a LocalAPI, or anything that answers a request as its handle() does
    (the grader's)."""

    def handle(self, method: str, path: str, headers: dict, body: bytes) -> Reply: ...


class Server:
    """A server for `api` on loopback (or on the Unix socket `path`); use as a context manager or
    start()/stop()."""

    def __init__(self, api: Handles, port
: int = 0, host: str = "127.0.0.1", *, path: str | None = None,
                 max_per_peer: int = 16, max_body: int = MAX_REQUEST_BYTES):
        self.api, self.path = api, path

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = READ_TIMEOUT  # per connection, on every read (and write)

            def _answer(self):
                try:
                    length = int(self.headers.get("content-length") or 0)
                except ValueError:
                    length = -1
                if not 0 <= length <= max_body:  # decided before a byte of the body is read
                    self.close_connection = True
                    error = (TOO_LARGE if length > 0 else BAD_LENGTH).encode()
                    self.send_response(413 if length > 0 else 400)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(error)))
                    self.send_header("connection", "close")
                    self.end_headers()
                    self.wfile.write(error)
                    return
                body = self.rfile.read(length) if length else b""
                reply = api.handle(self.command, self.path, dict(self.headers), body)
                self.send_response(reply.status)
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                if isinstance(reply.body, bytes):
                    self.send_header("content-length", str(len(reply.body)))
                    self.end_headers()
                    self.wfile.write(reply.body)
                    return
                # a stream: each event sent as it is made
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for chunk in reply.body:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            do_POST = do_GET = do_PUT = do_DELETE = _answer

            def address_string(self) -> str:
                return str(self.client_address or "unix")

            def log_message(self, *args):  # quiet: the API records requests itself
                pass

        self.httpd = _UnixHTTPServer(path, Handler, max_per_peer) if path else _HTTPServer(
            (host, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self.path:
            return "http://grader"  # any host: the client's transport connects to the socket
        # where it listens (port 0 asked for any free one)
        host, port = self.httpd.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def start(self) -> Server:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="local-messages-api",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:  # shutdown() would wait forever for a loop that never started
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()
        if self.path:
            os.unlink(self.path)

    def __enter__(self) -> Server:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
