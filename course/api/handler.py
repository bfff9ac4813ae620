"""The one request handler of the local Messages API.

`LocalAPI.handle(method, path, headers, body)` takes an HTTP request and gives
an HTTP reply: validation (400), the policy's turn cut by max_tokens, stop
sequences and the context window, usage with prompt caching, SSE streaming,
and faults on demand. The in-process transport and the loopback server are two
mounts of this one method.
"""
from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable

from . import tokens
from .errors import APIError, internal, overloaded, rate_limited, retry_headers
from .policy import CHOSEN_STOP_REASONS, Conversation, Policy, Turn
from .validate import cache_marks, validate_request

MAX_REQUEST_BYTES = 32 * 1024 * 1024  # the real API's limit for /v1/messages
MIN_CACHEABLE_TOKENS = 1024  # shorter prompts are silently not cached
CACHE_TTL = {"5m": 300.0, "1h": 3600.0}  # seconds a cache entry lives after its last use


@dataclass
class Reply:
    status: int
    headers: dict
    body: bytes


@dataclass
class Fault:
    """One injected failure, used by the next request: 429, 529, 500 or a slow answer."""

    kind: str  # "rate_limit" | "overloaded" | "server_error" | "slow"
    retry_after: float | None = None  # the retry-after header in seconds (a 429 always has one: 1 s)
    seconds: float = 0.0  # for slow: how long to wait before answering

    def __post_init__(self):
        if self.kind not in ("rate_limit", "overloaded", "server_error", "slow"):
            raise ValueError(f"unknown fault {self.kind!r}; use rate_limit, overloaded, server_error or slow")

    def error(self) -> APIError | None:
        """The error this fault answers with (None for a slow answer, which succeeds late)."""
        if self.kind == "slow":
            return None
        if self.kind == "rate_limit":
            return rate_limited(1.0 if self.retry_after is None else self.retry_after)
        e = overloaded() if self.kind == "overloaded" else internal()
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


@dataclass
class LocalAPI:
    """A local Messages API answering with `policy`. Thread-safe; records every request."""

    policy: Policy
    context_window: int = 200_000  # input + output tokens the model can hold
    latency: float = 0.0  # seconds added to every answer
    max_request_bytes: int = MAX_REQUEST_BYTES  # larger bodies get 413
    record: bool = True
    clock: Callable[[], float] = time.monotonic  # for cache expiry; tests pass a fake one
    faults: deque = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)

    def __post_init__(self):
        self._lock = threading.Lock()
        self._count = 0
        self._cached: dict[str, float] = {}  # prefix hash -> when the cache entry expires
        self._threads: dict[str, dict] = {}  # reply id -> the held conversation ending with that reply

    def inject(self, kind: str, times: int = 1, **options) -> "LocalAPI":
        """Make the next `times` requests fail with `kind` (rate_limit, overloaded, server_error, slow)."""
        for _ in range(times):
            self.faults.append(Fault(kind, **options))
        return self

    def handle(self, method: str, path: str, headers: dict, body: bytes) -> Reply:
        """One HTTP request in, one HTTP reply out: the whole API, whichever mount carried it."""
        with self._lock:
            self._count += 1
            request_id = f"req_local_{self._count:04d}"
            fault = self.faults.popleft() if self.faults else None
        path = path.split("?", 1)[0]
        parsed = None
        try:
            parsed = self._parse(method, path, headers, body)
            if self.latency:
                time.sleep(self.latency)
            self._fail(fault)
            if path == "/v1/messages/count_tokens":
                validate_request(parsed, count_only=True)
                answer = {"input_tokens": tokens.input_tokens(parsed)}
                return self._done(path, parsed, 200, request_id, answer)
            request = self._resume_thread(parsed)
            validate_request(request)
            message = self.create(request, request_id)
            self._hold_thread(request, message)
            if parsed.get("stream"):
                self._keep(path, parsed, 200, message)
                return Reply(200, {"content-type": "text/event-stream", "request-id": request_id}, sse(message))
            return self._done(path, parsed, 200, request_id, message)
        except APIError as e:
            return self._done(path, parsed, e.status, request_id, e.body(request_id), e.headers)

    def _parse(self, method: str, path: str, headers: dict, body: bytes) -> dict:
        """The JSON body, after the checks that come before validation: 404, 401, 413, unparsable JSON."""
        lower = {k.lower(): v for k, v in headers.items()}
        if path not in ("/v1/messages", "/v1/messages/count_tokens") or method != "POST":
            raise APIError(404, "not_found_error", f"Not found: {method} {path}")
        if not (lower.get("x-api-key") or lower.get("authorization", "").removeprefix("Bearer").strip()):
            raise APIError(401, "authentication_error", "x-api-key header is required")
        if len(body) > self.max_request_bytes:
            raise APIError(413, "request_too_large", "Request exceeds the maximum allowed number of bytes.")
        try:
            return json.loads(body or b"null")
        except (ValueError, UnicodeDecodeError):
            raise APIError(400, "invalid_request_error", "There was an error parsing the body of your request: "
                           "it is not valid JSON") from None

    def _resume_thread(self, body):
        """A beta `thread` "continue" request sends only the new messages: put the held conversation before them."""
        thread = body.get("thread") if isinstance(body, dict) else None
        if not isinstance(thread, dict) or thread.get("type") != "continue" or "previous_message_id" not in thread:
            return body  # nothing to resume (validation reports a malformed thread)
        with self._lock:
            held = self._threads.get(thread.get("previous_message_id"))
        if held is None:
            raise APIError(400, "invalid_request_error", "thread.previous_message_id: no conversation is held for "
                           f"message {thread.get('previous_message_id')!r}")
        new = body.get("messages") if isinstance(body.get("messages"), list) else []
        return {**held, **body, "messages": held["messages"] + new}

    def _hold_thread(self, body: dict, message: dict) -> None:
        """Hold a threaded conversation (its fields and messages, up to this reply) under the reply's id."""
        if body.get("thread") is None:
            return
        fields = {k: v for k, v in body.items() if k not in ("stream", "thread")}
        with self._lock:
            self._threads[message["id"]] = {**fields, "messages": body["messages"] + [
                {"role": "assistant", "content": message["content"]}]}

    def _fail(self, fault: Fault | None) -> None:
        """Apply this request's injected fault, if any: wait, then answer with its error."""
        if fault is None:
            return
        time.sleep(fault.seconds)
        error = fault.error()
        if error is not None:
            raise error

    def _keep(self, path: str, body, status: int, response) -> None:
        if self.record:
            with self._lock:
                self.requests.append(Recorded(path, body, status, response))

    def _done(self, path, body, status, request_id, answer, headers=None) -> Reply:
        self._keep(path, body, status, answer)
        return Reply(status, {"content-type": "application/json", "request-id": request_id, **(headers or {})},
                     json.dumps(answer).encode())

    def create(self, body: dict, request_id: str) -> dict:
        """The Message JSON answering a valid request body."""
        n_in = tokens.input_tokens(body)
        if n_in > self.context_window:
            raise APIError(400, "invalid_request_error", f"prompt is too long: {n_in} tokens > {self.context_window} maximum")
        conversation = Conversation(body)
        turn = self._ask_policy(conversation)
        call = conversation.calls_so_far + 1
        content = obey_tool_choice([_with_id(b, call, j) for j, b in enumerate(turn.content)], body.get("tool_choice"))
        stop = turn.stop_reason or ("tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
        content, stop, sequence = cut(content, stop, body.get("stop_sequences") or [],
                                      body["max_tokens"], self.context_window - n_in)
        written, read = self._cache(body)
        n_written = sum(written.values())
        message = {
            "id": f"msg_local_{request_id.rsplit('_', 1)[1]}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop,
            "stop_sequence": sequence,
            "usage": {"input_tokens": n_in - n_written - read, "output_tokens": generated(content, stop, body["max_tokens"], self.context_window - n_in),
                      "cache_creation_input_tokens": n_written, "cache_read_input_tokens": read,
                      "cache_creation": {"ephemeral_5m_input_tokens": written["5m"],
                                         "ephemeral_1h_input_tokens": written["1h"]}},
        }
        if stop == "refusal" and turn.stop_details:
            message["stop_details"] = turn.stop_details
        return message

    def _ask_policy(self, conversation: Conversation) -> Turn:
        """The policy's next turn. A policy that fails or answers wrongly is a 500 naming why, not retried."""
        try:
            turn = self.policy(conversation)
            if not isinstance(turn, Turn):
                raise TypeError(f"a policy must return a Turn, not {type(turn).__name__}")
            if turn.stop_reason is not None and turn.stop_reason not in CHOSEN_STOP_REASONS:
                raise ValueError(f"a policy cannot choose stop_reason {turn.stop_reason!r}; the handler decides it")
        except APIError:
            raise  # a policy may answer with an API error of its own (Scripted and Replay do)
        except Exception as e:
            raise APIError(500, "api_error", f"the local API's policy failed: {type(e).__name__}: {e}",
                           {"x-should-retry": "false"}) from e
        return turn

    def _cache(self, body: dict) -> tuple[dict[str, int], int]:
        """Prompt caching: tokens written per TTL, and tokens read, for the request's breakpoints.

        The longest live cached prefix is read; each breakpoint after it that is
        long enough writes the tokens between the previous one and itself.
        """
        written = {"5m": 0, "1h": 0}
        if not body.get("cache_control") and not cache_marks(body):
            return written, 0  # no breakpoint: nothing is read or written
        with self._lock:
            now = self.clock()
            live = {key for key, expires in self._cached.items() if expires > now}
            points = breakpoints(body)
            read = max((n for key, n, _ in points if key in live), default=0)
            done = read
            for key, n, ttl in points:
                if n < MIN_CACHEABLE_TOKENS:
                    continue  # too short: silently not cached
                if n > done:
                    written[ttl] += n - done
                    done = n
                self._cached[key] = now + CACHE_TTL[ttl]  # a write, or a read refreshing the TTL
        return written, read


def generated(content: list[dict], stop: str, max_tokens: int, room: int) -> int:
    """Output tokens: a turn cut at a limit generated up to that limit, as the real API reports."""
    if stop == "max_tokens":
        return max_tokens
    if stop == "model_context_window_exceeded":
        return room
    return tokens.output_tokens(content)


def _with_id(block: dict, call: int, j: int) -> dict:
    if block.get("type") == "tool_use" and not block.get("id"):
        return {**block, "id": f"toolu_local_{call:03d}_{j}"}
    return dict(block)


def obey_tool_choice(content: list[dict], choice: dict | None) -> list[dict]:
    """What tool_choice allows: "none" removes tool calls, disable_parallel_tool_use keeps only the first.

    ("any" and "tool" are up to the policy: the handler cannot invent a call the policy did not make.)
    """
    if choice and choice["type"] == "none":
        return [b for b in content if b["type"] != "tool_use"]
    if choice and choice.get("disable_parallel_tool_use"):
        first = next((i for i, b in enumerate(content) if b["type"] == "tool_use"), None)
        return [b for i, b in enumerate(content) if b["type"] != "tool_use" or i == first]
    return content


def cut(content: list[dict], stop: str, stop_sequences: list[str], max_tokens: int, room: int):
    """Cut a turn where generation would stop: a stop sequence, max_tokens, or the context window."""
    limit, reason = (max_tokens, "max_tokens") if max_tokens <= room else (room, "model_context_window_exceeded")
    out, used = [], 0
    for block in content:
        if block["type"] == "text":
            hits = [(block["text"].find(s), s) for s in stop_sequences if s in block["text"]]
            text, seq = block["text"], None
            if hits:
                at, seq = min(hits)
                text = text[:at]
            n = tokens.text_tokens(text)
            if used + n > limit:
                out.append({**block, "text": text[: (limit - used) * 4]})
                return [b for b in out if b.get("text", True)], reason, None
            used += n
            if text:
                out.append({**block, "text": text})
            if seq is not None:
                return out, "stop_sequence", seq
        else:
            n = tokens.block_tokens(block) - tokens.BLOCK_OVERHEAD
            if used + n > limit:
                # generation stopped inside the tool_use: its input JSON never closed
                out.append({**block, "input": {}})
                return out, reason, None
            used += n
            out.append(block)
    return out, stop, None


def breakpoints(body: dict) -> list[tuple[str, int, str]]:
    """(hash of the prefix, its token count, ttl) at every cache_control mark, in prompt order.

    The prompt's order is tools, then system, then messages; a top-level
    cache_control (automatic caching) marks the end of the prompt.
    """
    items: list = []
    points = []
    count = tokens.REQUEST_OVERHEAD

    def point(cache_control: dict):
        digest = hashlib.sha256(json.dumps([body["model"], items], sort_keys=True).encode()).hexdigest()
        points.append((digest, count, cache_control.get("ttl", "5m")))

    def mark(item: dict, n: int):
        nonlocal count
        count += n
        items.append({k: v for k, v in item.items() if k != "cache_control"})
        if item.get("cache_control"):
            point(item["cache_control"])

    for t in body.get("tools") or []:
        mark(t, tokens.json_tokens({k: v for k, v in t.items() if k != "cache_control"}))
    system = body.get("system") or []
    if isinstance(system, str):  # a plain string system prompt cannot carry a mark
        count += tokens.text_tokens(system)
        items.append(system)
    for b in system if isinstance(system, list) else []:
        mark(b, tokens.block_tokens(b))
    for m in body["messages"]:
        content = [{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"]
        count += tokens.MESSAGE_OVERHEAD
        items.append(m["role"])
        for b in content:
            mark(b, tokens.block_tokens(b))
    if body.get("cache_control"):
        point(body["cache_control"])
    return points


def sse(message: dict) -> bytes:
    """The Message as the event stream the real API sends when `stream: true`."""
    events = []

    def emit(kind, data):
        events.append(f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n")

    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None,
             "usage": {**message["usage"], "output_tokens": 1}}
    emit("message_start", {"message": start})
    emit("ping", {})
    for i, block in enumerate(message["content"]):
        if block["type"] == "text":
            emit("content_block_start", {"index": i, "content_block": {"type": "text", "text": ""}})
            for k in range(0, len(block["text"]), 16):
                emit("content_block_delta", {"index": i, "delta": {"type": "text_delta", "text": block["text"][k:k + 16]}})
        elif block["type"] == "tool_use":
            emit("content_block_start", {"index": i, "content_block": {**block, "input": {}}})
            raw = json.dumps(block["input"])
            for k in range(0, len(raw), 16):
                emit("content_block_delta", {"index": i, "delta": {"type": "input_json_delta", "partial_json": raw[k:k + 16]}})
        emit("content_block_stop", {"index": i})
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"],
             "stop_details": message.get("stop_details")}
    emit("message_delta", {"delta": delta, "usage": {"output_tokens": message["usage"]["output_tokens"]}})
    emit("message_stop", {})
    return "".join(events).encode()
