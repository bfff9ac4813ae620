"""The one request handler of the local Messages API.

`LocalAPI.handle(method, path, headers, body)` takes an HTTP request and gives
an HTTP reply. A request goes down one pipeline, each step in its own file:

    handler (parse, faults)  ->  threads (resume a held conversation)  ->  validate (400, 404)
      ->  generation (policy, tool_choice, thinking, cut, usage; cache for prompt caching)
      ->  stream (SSE events, when stream: true)  ->  handler (record, reply)

The in-process transport and the loopback server are two mounts of this one method.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from . import models
from .cache import PromptCache
from .errors import APIError, internal, overloaded, rate_limited, retry_headers
from .generation import cannot_answer, generate
from .policy import Policy
from .stream import events
from .threads import Threads
from .validate import validate_request

MAX_REQUEST_BYTES = 32 * 1024 * 1024  # the real API's limit for /v1/messages
FAULTS = ("rate_limit", "overloaded", "server_error", "slow", "stream_error")
ROUTES = {("POST", "/v1/messages"), ("POST", "/v1/messages/count_tokens"), ("GET", "/v1/models")}


@dataclass
class Reply:
    status: int
    headers: dict
    # an iterator is a stream: each item is sent as soon as it is made
    body: bytes | Iterator[bytes]


@dataclass
class Fault:
    """One injected failure, used by the next request: 429, 529, 500, a slow answer, or a stream
    that fails."""

    kind: str  # "rate_limit" | "overloaded" | "server_error" | "slow" | "stream_error"
    # the retry-after header in seconds (a 429 always has one: 1 s)
    retry_after: float | None = None
    seconds: float = 0.0  # for slow: how long to wait before answering

    def __post_init__(self):
        if self.kind not in FAULTS:
            raise ValueError(f"unknown fault {self.kind!r}; use {', '.join(FAULTS)}")

    def error(self) -> APIError | None:
        """The error this fault answers with (None for a slow answer, which succeeds late)."""
        if self.kind == "slow":
            return None
        if self.kind == "rate_limit":
            return rate_limited(1.0 if self.retry_after is None else self.retry_after)
        e = internal() if self.kind == "server_error" else overloaded()
        if self.retry_after is not None:
            e.headers.update(retry_headers(self.retry_after))
        return e


@dataclass
class Recorded:
    """One request as it crossed the wire, and what the API answered."""

    path: str
    body: dict | None
    status: int
    response: dict | None = None
    # the request's anthropic-* headers (anthropic-beta: the betas asked)
    headers: dict = field(default_factory=dict)
    query: str = ""  # the query string: Claude Code posts to /v1/messages?beta=true


@dataclass
class LocalAPI:
    """A local Messages API answering with `policy`. Thread-safe; records every request."""

    policy: Policy
    # input + output tokens the model can hold (None: the model's own)
    context_window: int | None = None
    latency: float = 0.0  # seconds added to every answer
    pace: float = 0.0  # seconds between streamed events (time-to-first-token, a slow stream)
    max_request_bytes: int = MAX_REQUEST_BYTES  # larger bodies get 413
    record: bool = True
    clock: Callable[[], float] = time.monotonic  # for cache expiry; tests pass a fake one
    # the policy may call tools a request with tools lacks (never the real API)
    undeclared_tools: bool = False
    log: Callable[[Recorded], None] | None = None  # called with every request as it is answered
    faults: deque = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self):
        self._lock = threading.Lock()
        self._count = 0
        self.cache = PromptCache(self.clock)
        self.threads = Threads()

    def inject(self, kind: str, times: int = 1, **options) -> LocalAPI:
        """Make the next `times` requests fail with `kind` (rate_limit, overloaded, server_error,
        slow, stream_error: a 200 stream that ends with an overloaded error event).

        The anthropic SDK retries twice, honouring retry-after; Claude Code retries ten times on its
        own backoff (0.5 s doubling to 32 s, or retry-after if longer): about 3 minutes when the
        fault stays, unless the CLI's environment sets CLAUDE_CODE_MAX_RETRIES
        (docs/FRAMEWORKS.md)."""
        for _ in range(times):
            self.faults.append(Fault(kind, **options))
        return self

    def handle(self, method: str, path: str, headers: dict, body: bytes) -> Reply:
        """One HTTP request in, one HTTP reply out: the whole API, whichever mount carried it."""
        with self._lock:
            self._count += 1
            request_id = f"req_local_{self._count:04d}"
            fault = self.faults.popleft() if self.faults else None
        path, _, query = path.partition("?")
        seen = {"headers": {k.lower(): v for k,
                            v in headers.items() if k.lower().startswith("anthropic-")},
                "query": query}
        parsed = None
        try:
            parsed = self._parse(method, path, headers, body)
            if self.latency:
                time.sleep(self.latency)
            mid_stream = self._fail(fault, streaming=isinstance(parsed, dict)
                                    and bool(parsed.get("stream")))
            if method == "GET":
                return self._done(path, None, 200, request_id, self._models(path), seen)
            if path == "/v1/messages/count_tokens":
                served = validate_request(parsed, count_only=True)
                answer = {"input_tokens": served.tokenizer.input_tokens(parsed)}
                return self._done(path, parsed, 200, request_id, answer, seen)
            request = self.threads.resume(parsed)
            served = validate_request(request)
            message, partial = generate(request, served, self.policy, self.cache, request_id,
                                        self.context_window, self.undeclared_tools)
            self.threads.hold(request, message)
            if parsed.get("stream"):
                self._keep(path, parsed, 200, message, seen)
                return Reply(200, {"content-type": "text/event-stream", "request-id": request_id},
                             events(message, partial, self.pace, mid_stream))
            return self._done(path, parsed, 200, request_id, message, seen)
        except APIError as e:
            return self._done(path, parsed, e.status, request_id, e.body(request_id), seen,
                              e.headers)
        except Exception as e:
            # a bug of the local API's: still an answer, never a dropped connection
            error = cannot_answer(f"the local API failed: {type(e).__name__}: {e}")
            return self._done(path, parsed, error.status, request_id, error.body(request_id), seen,
                              error.headers)

    def _parse(self, method: str, path: str, headers: dict, body: bytes):
        """The JSON body, after the checks that come before validation: 404, 401, 413, unparsable
        JSON."""
        lower = {k.lower(): v for k, v in headers.items()}
        if (method, path) not in ROUTES and not (
            method == "GET" and path.startswith("/v1/models/")
        ):
            raise APIError(404, "not_found_error", f"Not found: {method} {path}")
        if not (lower.get("x-api-key")
                or lower.get("authorization", "").removeprefix("Bearer").strip()):
            raise APIError(401, "authentication_error", "x-api-key header is required")
        if method == "GET":
            return None
        if len(body) > self.max_request_bytes:
            raise APIError(413, "request_too_large",
                           "Request exceeds the maximum allowed number of bytes.")
        try:
            return json.loads(body or b"null")
        except (ValueError, UnicodeDecodeError):
            raise APIError(400, "invalid_request_error",
                           "There was an error parsing the body of your request: "
                           "it is not valid JSON") from None

    def _models(self, path: str) -> dict:
        """GET /v1/models (the served models) or GET /v1/models/{id} (one of them, or a 404)."""
        name = path.removeprefix("/v1/models").strip("/")
        return models.model(name).info() if name else models.listing()

    def _fail(self, fault: Fault | None, streaming: bool) -> APIError | None:
        """Apply this request's injected fault: wait, then answer with its error.

        A stream_error fault is returned for the stream to send after its first
        delta; a request that does not stream gets it as a 529 straight away.
        """
        if fault is None:
            return None
        time.sleep(fault.seconds)
        error = fault.error()
        if fault.kind == "stream_error" and streaming:
            return error
        if error is not None:
            raise error
        return None

    def _keep(self, path: str, body, status: int, response, seen: dict) -> None:
        if self.record or self.log:
            recorded = Recorded(path, body, status, response, **seen)
            with self._lock:
                if self.record:
                    self.requests.append(recorded)
                if self.log:
                    self.log(recorded)

    def _done(self, path, body, status, request_id, answer, seen: dict, headers=None) -> Reply:
        self._keep(path, body, status, answer, seen)
        return Reply(status, {"content-type": "application/json", "request-id": request_id,
                              **(headers or {})},
                     json.dumps(answer).encode())
