"""The one place that builds a client, and the one place model ids live.

`make_client()` gives the genuine `anthropic.Anthropic` talking to the local
Messages API in-process; `make_client(live=True)` talks to the real API, only
when ANTHROPIC_API_KEY is set. Nothing else in the course changes.
"""
from __future__ import annotations

import os

import anthropic
import httpx2

from .api import LocalAPI, Policy, transport
from .i18n import tr

# Model ids the course uses (the current generation, read 2026-11-30); tests check each against the
# SDK's known and deprecated lists. What each model does differently is in course.api.models.
MODEL = "claude-haiku-5-5"  # the default: cheapest, fast, and it accepts a forced tool_choice
MODELS = {"haiku": "claude-haiku-5-5", "sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5"}

LOCAL_BASE_URL = "http://local.api"  # never resolved: the transport answers in-process
LOCAL_KEY = "local-key-not-a-secret"


class LiveAPIUnavailable(RuntimeError):
    """Asked for the live API without an ANTHROPIC_API_KEY in the environment."""


def local_client(api: LocalAPI, *, max_retries: int = 2, **options) -> anthropic.Anthropic:
    """The genuine SDK client, wired to `api` in-process."""
    http = httpx2.Client(transport=transport(api))
    return anthropic.Anthropic(api_key=LOCAL_KEY, base_url=LOCAL_BASE_URL, http_client=http,
                               max_retries=max_retries, **options)


def make_client(policy: Policy | LocalAPI | None = None, *, live: bool = False,
                base_url: str | None = None, **options) -> anthropic.Anthropic:
    """A client for the local API answering with `policy` (the default), for a local API
    server at `base_url` (`python -m course serve`), or for the live API.

    live=True needs ANTHROPIC_API_KEY; the key is read by the SDK from the
    environment and never passed around, printed or stored by the course.
    """
    if live:
        if not os.environ.get("ANTHROPIC_API_KEY"):
            raise LiveAPIUnavailable(tr("live=True needs the ANTHROPIC_API_KEY environment "
                                        "variable; without it, use the local API (live=False)"))
        return anthropic.Anthropic(**options)
    if base_url is not None:
        return anthropic.Anthropic(api_key=LOCAL_KEY, base_url=base_url, **options)
    if policy is None:
        raise TypeError(tr("make_client() needs a policy (or a LocalAPI) for the local API, a "
                           "base_url, or live=True"))
    api = policy if isinstance(policy, LocalAPI) else LocalAPI(policy)
    return local_client(api, **options)


def wants_live() -> bool:
    """True when the learner asked for the live API (COURSE_LIVE=1) and a key is present."""
    return os.environ.get("COURSE_LIVE") == "1" and bool(os.environ.get("ANTHROPIC_API_KEY"))
