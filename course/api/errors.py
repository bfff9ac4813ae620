"""API errors with the real API's body shape: {"type": "error", "error": {...}}."""
from __future__ import annotations


class APIError(Exception):
    """An error response: HTTP status, error type and message, optional headers."""

    def __init__(self, status: int, kind: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.message = message
        self.headers = headers or {}

    def body(self, request_id: str) -> dict:
        return {"type": "error", "error": {"type": self.kind, "message": self.message},
                "request_id": request_id}


def retry_headers(seconds: float) -> dict:
    """How long the client should wait before retrying (the SDK reads retry-after-ms first)."""
    return {"retry-after": f"{max(1, round(seconds))}", "retry-after-ms": f"{seconds * 1000:g}"}


def rate_limited(retry_after: float = 1.0) -> APIError:
    return APIError(429, "rate_limit_error",
                    "Number of request tokens has exceeded your per-minute rate limit.",
                    retry_headers(retry_after))


def overloaded() -> APIError:
    return APIError(529, "overloaded_error", "Overloaded")


def internal() -> APIError:
    return APIError(500, "api_error", "Internal server error")
