"""Mount 1: the handler as an in-process httpx2 transport (no network, no thread)."""
from __future__ import annotations

import httpx2

from .handler import LocalAPI


def transport(api: LocalAPI) -> httpx2.MockTransport:
    def respond(request: httpx2.Request) -> httpx2.Response:
        reply = api.handle(request.method, request.url.raw_path.decode(),
                           dict(request.headers.items()), request.read())
        # a stream stays lazy
        return httpx2.Response(reply.status, headers=reply.headers, content=reply.body)

    return httpx2.MockTransport(respond)
