"""Threads (beta): the API holds a conversation, so a "continue" request sends only the new
messages."""
from __future__ import annotations

import threading

from .errors import APIError


class Threads:
    """Held conversations: reply id -> the request's fields and messages up to that reply."""

    def __init__(self):
        self._lock = threading.Lock()
        self._held: dict[str, dict] = {}

    def resume(self, body):
        """The request with the held conversation put before its messages (unchanged if it continues
        nothing)."""
        thread = body.get("thread") if isinstance(body, dict) else None
        if (
            not isinstance(thread, dict)
            or thread.get("type") != "continue"
            or "previous_message_id" not in thread
        ):
            return body  # nothing to resume (validation reports a malformed thread)
        with self._lock:
            held = self._held.get(thread.get("previous_message_id"))
        if held is None:
            raise APIError(400, "invalid_request_error",
                           "thread.previous_message_id: no conversation is held for "
                           f"message {thread.get('previous_message_id')!r}")
        new = body.get("messages") if isinstance(body.get("messages"), list) else []
        return {**held, **body, "messages": held["messages"] + new}

    def hold(self, body: dict, message: dict) -> None:
        """Hold a threaded conversation (its fields and messages, up to this reply) under the
        reply's id."""
        if body.get("thread") is None:
            return
        fields = {k: v for k, v in body.items() if k not in ("stream", "thread")}
        with self._lock:
            self._held[message["id"]] = {**fields, "messages": body["messages"] + [
                {"role": "assistant", "content": message["content"]}]}
