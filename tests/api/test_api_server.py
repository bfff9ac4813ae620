"""The HTTP mount defends itself before the handler sees a request: a body too large by its
Content-Length is refused unread, a silent connection is closed, and on a Unix socket a peer holds a
bounded number of connections."""
from __future__ import annotations

import socket
import time

import anthropic
import httpx2

from course.api import LocalAPI, server
from course.api.server import Server
from course.scenarios import get

HEADERS = b"POST /v1/messages HTTP/1.1\r\nHost: local\r\nx-api-key: k\r\nContent-Length: %d\r\n\r\n"


def test_a_body_larger_than_the_limit_is_refused_from_its_content_length_before_it_is_read():
    with (
        Server(LocalAPI(get("one_shot").policy)) as api,
        socket.create_connection(api.httpd.server_address) as s,
    ):
        s.sendall(HEADERS % (300 << 20))  # and not one byte of the 300 MB
        s.settimeout(5)
        reply = b""
        while chunk := s.recv(1000):  # until the server hangs up
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 413") and b"request_too_large" in reply


def test_a_connection_that_stays_silent_is_closed(monkeypatch):
    monkeypatch.setattr(server, "READ_TIMEOUT", 0.5)
    with (
        Server(LocalAPI(get("one_shot").policy)) as api,
        socket.create_connection(api.httpd.server_address) as s,
    ):
        s.settimeout(5)
        started = time.monotonic()
        assert s.recv(1) == b""  # the server hung up
        assert time.monotonic() - started < 4


def test_on_a_unix_socket_the_genuine_sdk_is_served_and_a_peer_holds_at_most_its_connections(
    tmp_path):
    path = tmp_path / "api.sock"
    with Server(LocalAPI(get("one_shot").policy), path=str(path), max_per_peer=3) as api:
        transport = httpx2.HTTPTransport(uds=str(path))
        client = anthropic.Anthropic(api_key="k", base_url=api.base_url, max_retries=0,
                                     http_client=httpx2.Client(transport=transport))
        reply = client.messages.create(model="claude-haiku-4-5", max_tokens=50,
                                       messages=[{"role": "user",
                                                  "content": "What is the capital of France?"}])
        assert reply.content[0].text
        client.close()
        time.sleep(0.2)
        held = []
        for _ in range(10):
            s = socket.socket(socket.AF_UNIX)
            s.connect(str(path))
            held.append(s)
        time.sleep(0.5)
        still_open = 0
        for s in held:
            s.setblocking(False)
            try:
                s.recv(1)
            except BlockingIOError:
                still_open += 1
            s.close()
    assert still_open == 3
    assert not path.exists()
