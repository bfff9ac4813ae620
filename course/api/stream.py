"""Streaming: the Message as the server-sent events the real API writes while it generates.

Events are yielded one at a time, so both mounts send each as it is made
(chunked, no content-length); `pace` waits between events, so time-to-first-token
and a slow stream can be seen. A `ping` follows the first content_block_start; a
tool_use cut by a limit streams the partial JSON generated before the cut; a
mid-stream `error` event can end a stream whose status was already 200.
"""
from __future__ import annotations

import json
import time
from collections.abc import Iterator

from .errors import APIError

CHUNK = 16  # characters per delta
# fields the stream sends in message_delta, not message_start
LATE = ("context_management", "input_transformations")


def event(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


def events(message: dict, partial: dict[int, str], pace: float = 0.0,
           error: APIError | None = None) -> Iterator[bytes]:
    """The stream of `message`; `error` ends it with an error event right after the first delta."""
    for i, chunk in enumerate(_events(message, partial, error)):
        if pace and i:
            time.sleep(pace)
        yield chunk


def _events(message: dict, partial: dict[int, str], error: APIError | None) -> Iterator[bytes]:
    usage = message["usage"]
    start = {**{k: v for k, v in message.items() if k not in LATE}, "content": [],
             "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}
    yield event("message_start", {"message": start})
    pinged = False
    for i, block in enumerate(message["content"]):
        yield event("content_block_start", {"index": i, "content_block": _empty(block)})
        if not pinged:
            yield event("ping", {})
            pinged = True
        for n, delta in enumerate(_deltas(block, partial.get(i))):
            yield event("content_block_delta", {"index": i, "delta": delta})
            if error is not None and n == 0:
                yield event("error", {"error": {"type": error.kind, "message": error.message}})
                return
        yield event("content_block_stop", {"index": i})
    if not pinged:
        yield event("ping", {})
    if error is not None:  # a reply with nothing to stream fails before its end
        yield event("error", {"error": {"type": error.kind, "message": error.message}})
        return
    delta = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"],
             "stop_details": message.get("stop_details")}
    totals = {k: usage[k] for k in ("input_tokens", "cache_creation_input_tokens",
                                    "cache_read_input_tokens", "output_tokens")}
    late = {k: message[k] for k in LATE if k in message}
    # the edits applied come at the end
    yield event("message_delta", {"delta": delta, "usage": totals, **late})
    yield event("message_stop", {})


def _empty(block: dict) -> dict:
    """The block as content_block_start announces it, before any delta."""
    if block["type"] == "text":
        return {"type": "text", "text": ""}
    if block["type"] == "thinking":
        return {"type": "thinking", "thinking": "", "signature": ""}
    return {**block, "input": {}}


def _deltas(block: dict, partial: str | None) -> Iterator[dict]:
    if block["type"] == "text":
        for k in range(0, len(block["text"]), CHUNK):
            yield {"type": "text_delta", "text": block["text"][k:k + CHUNK]}
    elif block["type"] == "thinking":
        for k in range(0, len(block["thinking"]), CHUNK):
            yield {"type": "thinking_delta", "thinking": block["thinking"][k:k + CHUNK]}
        yield {"type": "signature_delta", "signature": block["signature"]}
    elif block["type"] == "tool_use":
        raw = json.dumps(block["input"]) if partial is None else partial
        for k in range(0, len(raw), CHUNK):
            yield {"type": "input_json_delta", "partial_json": raw[k:k + CHUNK]}
