"""The key relay: students call the Messages API with their own token; the relay calls it with the
instructor's key.

A request flows one way: authenticate the student's token (401), check the
request's shape (400), admit it against the student's budget (402) and rate
(429), forward it with the instructor's key, pass the answer back as it comes
(SSE included), and charge the usage the upstream reported. Upstream errors and
timeouts go back in the API's shape with retry headers, so the SDK retries as
it would against the real API. Only an allow-list of headers crosses the relay
in either direction: a student's token never reaches the upstream.
"""
from __future__ import annotations

import functools
import itertools
import json
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

import httpx2

from ..api.errors import APIError, retry_headers
from ..api.server import _HTTPServer
from ..pricing import cost_usd
from .ledger import Ledger

REAL_API = "https://api.anthropic.com"
PATHS = ("/v1/messages", "/v1/messages/count_tokens")  # what the relay forwards
MAX_REQUEST_BYTES = 32 * 1024 * 1024  # the real API's limit
# student headers passed on
TO_UPSTREAM = ("content-type", "anthropic-version", "anthropic-beta", "user-agent")
# and back
FROM_UPSTREAM = ("content-type", "request-id", "retry-after", "retry-after-ms", "x-should-retry")
KINDS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
         404: "not_found_error",
         413: "request_too_large", 429: "rate_limit_error", 504: "timeout_error",
         529: "overloaded_error"}


class Relay:
    """The relay on a loopback (or LAN) port; use as a context manager or start()/stop()."""

    def __init__(self, ledger: Ledger, key: str, upstream: str = REAL_API, *, port: int = 0,
                 host: str = "127.0.0.1", timeout: float = 600.0,
                 log: Callable[[str], None] | None = None):
        if not key:
            raise ValueError("the relay needs the instructor's API key (ANTHROPIC_API_KEY)")
        self.ledger = ledger
        self._key = key
        self.upstream = upstream.rstrip("/")
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self._ids = itertools.count(1)
        self._http = httpx2.Client(base_url=self.upstream, timeout=timeout,
                                   limits=httpx2.Limits(max_connections=None,
                                                        max_keepalive_connections=100))
        relay = self

        class RelayHandler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _answer(self):
                relay.handle(self)

            do_POST = do_GET = do_PUT = do_DELETE = _answer

            def log_message(self, *args):  # the relay logs one line per request itself
                pass

        self.httpd = _HTTPServer((host, port), RelayHandler)
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:  # never the key
        return f"Relay({self.base_url} -> {self.upstream}, {len(self.ledger.accounts)} students)"

    @property
    def base_url(self) -> str:
        # where it listens (port 0 asked for any free one)
        host, port = self.httpd.socket.getsockname()[:2]
        return f"http://{host}:{port}"

    def handle(self, exchange: BaseHTTPRequestHandler) -> None:
        """One student request, start to finish."""
        request_id = f"req_relay_{next(self._ids):06d}"
        path = exchange.path.split("?", 1)[0]
        length = int(exchange.headers.get("content-length") or 0)
        if length > MAX_REQUEST_BYTES:
            exchange.close_connection = True  # the body is left unread
            return self._error(exchange, request_id, APIError(413, "request_too_large",
                               "Request exceeds the maximum allowed number of bytes."))
        body = exchange.rfile.read(length) if length else b""
        token = exchange.headers.get("x-api-key") or exchange.headers.get(
            "authorization", ""
        ).removeprefix("Bearer ")
        student = self.ledger.student(token.strip())
        if student is None:
            return self._error(exchange, request_id, APIError(401, "authentication_error",
                               "invalid x-api-key: not a token on the workshop's roster"))
        try:
            model = self.parse(exchange.command, path, body)
        except APIError as e:
            self.ledger.refuse(student)
            return self._error(exchange, request_id, e, student)
        refusal = self.ledger.admit(student)
        if refusal is not None:
            return self._error(exchange, request_id, refusal, student)
        self.forward(exchange, request_id, student, path, body, model)

    def parse(self, method: str, path: str, body: bytes) -> str:
        """The model of a request the relay may forward; an APIError for one it must not."""
        if method != "POST" or path not in PATHS:
            raise APIError(404, "not_found_error",
                           f"Not found: {method} {path} (the workshop relay forwards only "
                           f"POST {' and '.join(PATHS)})")
        try:
            request = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise APIError(400, "invalid_request_error",
                           "There was an error parsing the body of your request: "
                           "it is not valid JSON") from None
        if not isinstance(request, dict):
            raise APIError(400, "invalid_request_error", "the request body must be a JSON object")
        model = request.get("model")
        if not isinstance(model, str):
            raise APIError(400, "invalid_request_error",
                           "model: Field required (a model id string)")
        try:
            cost_usd(model, {"input_tokens": 0, "output_tokens": 0})
        except KeyError:
            raise APIError(400, "invalid_request_error",
                           f"model: the workshop relay has no price for {model!r}, "
                           "so it cannot meter it; use one of the course's models") from None
        if not isinstance(request.get("stream", False), bool):
            raise APIError(400, "invalid_request_error", "stream: Input should be a valid boolean")
        return model

    def forward(self, exchange, request_id: str, student: str, path: str, body: bytes,
                model: str) -> None:
        """Send the request upstream with the instructor's key; charge its usage; pass the answer
        back."""
        headers = {k: v for k, v in exchange.headers.items() if k.lower() in TO_UPSTREAM}
        request = self._http.build_request("POST", path, content=body,
                                           headers={**headers, "x-api-key": self._key})
        meter = UsageMeter()
        settle = functools.partial(self._settle, request_id, student, path, model, meter)

        # no usable answer from the upstream: charge the failure, say why
        def fail(error: APIError) -> None:
            meter.failed = True
            settle()
            self._error(exchange, request_id, error, student)

        try:
            response = self._http.send(request, stream=True)
        except httpx2.TimeoutException:
            return fail(timed_out())
        except httpx2.TransportError as e:
            return fail(APIError(
                502, "api_error", f"the upstream API could not be reached ({type(e).__name__})",
                retry_headers(1.0)))
        try:
            meter.status = response.status_code
            if meter.status == 401:  # the instructor's key, not the student's token, was refused
                return fail(APIError(
                    500, "api_error",
                    "the upstream API refused the relay's key; tell the instructor",
                    {"x-should-retry": "false"}))
            if response.headers.get("content-type", "").startswith("text/event-stream"):
                return self._stream(exchange, response, meter, settle)
            content = response.read()
            headers = self._headers_back(response)
            if meter.status == 200 and path == "/v1/messages":
                meter.usage = json.loads(content).get("usage")
            elif meter.status != 200:
                content = api_shaped(meter.status, content, request_id)
                headers["content-type"] = "application/json"
            # charged before the student sees the answer: the CSV is never behind the student
            settle()
            self._send(exchange, meter.status, headers, content)
        except httpx2.TimeoutException:
            if not meter.started:
                return fail(timed_out())
            meter.failed = True
            # a stream cut midway: the student sees the connection end
            exchange.close_connection = True
        except (ConnectionError, httpx2.TransportError):
            meter.failed = True
            exchange.close_connection = True
        finally:
            response.close()
            settle()

    def _stream(self, exchange, response, meter: UsageMeter, settle: Callable[[], None]) -> None:
        """Pass the SSE stream on chunk by chunk as it arrives, reading the usage from its
        events."""
        exchange.send_response(response.status_code)
        for k, v in self._headers_back(response).items():
            exchange.send_header(k, v)
        exchange.send_header("transfer-encoding", "chunked")
        exchange.end_headers()
        meter.started = True
        for chunk in response.iter_bytes():
            meter.feed(chunk)
            if meter.complete:
                settle()  # before message_stop reaches the student
            exchange.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            exchange.wfile.flush()
        exchange.wfile.write(b"0\r\n\r\n")
        exchange.wfile.flush()

    def _settle(self, request_id: str, student: str, path: str, model: str,
                meter: UsageMeter) -> None:
        """Charge one forwarded request once: the usage the upstream reported, and whether it
        failed."""
        if meter.charged:
            return
        meter.charged = True
        failed = meter.status != 200 or meter.failed
        cost = self.ledger.charge(student, model, meter.usage, failed=failed)
        self.log(f"{request_id} {student} {path} {meter.status or '-'} {usage_line(meter.usage)} "
                 f"${cost:.6f}")

    def _headers_back(self, response) -> dict:
        return {k: v for k, v in response.headers.items() if k.lower() in FROM_UPSTREAM}

    def _error(self, exchange, request_id: str, error: APIError, student: str = "-") -> None:
        self.log(f"{request_id} {student} {exchange.path.split('?', 1)[0]} {error.status} "
                 f"{error.kind}")
        body = json.dumps(error.body(request_id)).encode()
        self._send(exchange, error.status,
                   {"content-type": "application/json", "request-id": request_id,
                                            **error.headers}, body)

    def _send(self, exchange, status: int, headers: dict, body: bytes) -> None:
        exchange.send_response(status)
        for k, v in headers.items():
            exchange.send_header(k, v)
        exchange.send_header("content-length", str(len(body)))
        exchange.end_headers()
        exchange.wfile.write(body)

    def start(self) -> Relay:
        self._thread = threading.Thread(target=self.httpd.serve_forever, name="course-relay",
                                        daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread is not None:
            self.httpd.shutdown()
            self._thread.join()
            self._thread = None
        self.httpd.server_close()
        self._http.close()

    def __enter__(self) -> Relay:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class UsageMeter:
    """The usage of a streamed answer, from its events: message_start's usage, updated by
    message_delta's."""

    def __init__(self):
        self.usage: dict | None = None
        self.status = 0  # the upstream's HTTP status; 0 before it answers
        self.started = False  # the answer's status line has gone to the student
        self.failed = False  # the answer ended early, or with an `error` event
        self.complete = False  # message_stop seen
        self.charged = False  # the ledger has this request
        self._pending = b""

    def feed(self, chunk: bytes) -> None:
        self._pending += chunk
        *events, self._pending = self._pending.replace(b"\r\n", b"\n").split(b"\n\n")
        for event in events:
            for line in event.split(b"\n"):
                if line.startswith(b"data:"):
                    try:
                        self._read(json.loads(line[5:]))
                    except (ValueError, AttributeError, KeyError):
                        self.failed = True  # not an event the API sends

    def _read(self, data: dict) -> None:
        if data.get("type") == "message_start":
            self.usage = dict(data["message"].get("usage") or {})
        elif data.get("type") == "message_delta" and self.usage is not None:
            self.usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
        elif data.get("type") == "message_stop":
            self.complete = True
        elif data.get("type") == "error":
            self.failed = True


def timed_out() -> APIError:
    return APIError(504, "timeout_error", "the upstream API did not answer in time",
                    retry_headers(1.0))


def api_shaped(status: int, content: bytes, request_id: str) -> bytes:
    """An upstream error body as the API shapes it: kept if it already is, else wrapped."""
    try:
        if json.loads(content).get("type") == "error":
            return content
    except (ValueError, AttributeError):
        pass
    kind = KINDS.get(status, "api_error")
    text = content.decode("utf-8", "replace")[:200]
    return json.dumps(
        APIError(status, kind, f"upstream answered {status}: {text}").body(request_id)
    ).encode()


def usage_line(usage: dict | None) -> str:
    if not usage:
        return "in=0 out=0"
    return f"in={usage.get('input_tokens') or 0} out={usage.get('output_tokens') or 0}"
