"""Mount 2: the handler behind a real HTTP server on loopback, for other processes."""
from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .handler import LocalAPI


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # connections waiting to be accepted: a room of students connects at once

    def handle_error(self, request, client_address):
        """A client that hung up (its timeout ran out) is normal here, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Server:
    """A loopback server for `api`; use as a context manager or start()/stop()."""

    def __init__(self, api: LocalAPI, port: int = 0, host: str = "127.0.0.1"):
        self.api = api

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self):
                length = int(self.headers.get("content-length") or 0)
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
                self.send_header("transfer-encoding", "chunked")  # a stream: each event sent as it is made
                self.end_headers()
                for chunk in reply.body:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            do_POST = do_GET = do_PUT = do_DELETE = _answer

            def log_message(self, *args):  # quiet: the API records requests itself
                pass

        self.httpd = _HTTPServer((host, port), Handler)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> "Server":
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="local-messages-api", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:  # shutdown() would wait forever for a loop that never started
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
