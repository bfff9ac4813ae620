"""The models the local API serves, and what each one does differently: the one per-model table.

Read 2026-11-30 from the official model pages (see ../shared/FACTS.md): the 5.5
generation is current; Haiku 4.5 is legacy but still served. Retired and
deprecated ids are left out (a test checks them against the SDK's lists).
"""
from __future__ import annotations

from dataclasses import dataclass

from .errors import APIError
from .tokens import CURRENT, Tokenizer

HAIKU_4_5_TOKENIZER = Tokenizer(1.0)


@dataclass(frozen=True)
class Model:
    """One model id and the facts the local API needs about it."""

    id: str
    display_name: str
    # release date for GET /v1/models (Haiku 5.5's is checked; Sonnet and Opus 5.5 are given the
    # same)
    created_at: str
    max_output_tokens: int  # max_tokens above this is a 400
    cache_minimum: int  # prompts shorter than this are silently not cached
    forced_tool_choice: bool  # tool_choice "any" / "tool" accepted
    # how it counts: the 5.x tokenizer counts about 30% more tokens than Haiku 4.5's
    tokenizer: Tokenizer
    thinks: bool  # adaptive thinking: replies may start with a thinking block
    context_window: int = 1_000_000

    def info(self) -> dict:
        """The model as GET /v1/models/{id} describes it."""
        return {"type": "model", "id": self.id, "display_name": self.display_name,
                "created_at": f"{self.created_at}T00:00:00Z"}


MODELS: dict[str, Model] = {m.id: m for m in [
    Model("claude-haiku-5-5", "Claude Haiku 5.5", "2026-10-07", 128_000, 512, True, CURRENT, True),
    Model("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-10-07", 128_000, 512, False, CURRENT,
          True),
    Model("claude-opus-5-5", "Claude Opus 5.5", "2026-10-07", 128_000, 512, False, CURRENT, True),
    Model("claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-01", 64_000, 4_096, True,
          HAIKU_4_5_TOKENIZER, False, 200_000),
]}


def model(name) -> Model:
    """The served model called `name`; any other name is the real API's 404."""
    found = MODELS.get(name) if isinstance(name, str) else None
    if found is None:
        raise APIError(404, "not_found_error", f"model: {name}")
    return found


def listing() -> dict:
    """GET /v1/models: every served model, newest first, in the real API's page shape."""
    data = [m.info() for m in sorted(MODELS.values(), key=lambda m: m.created_at, reverse=True)]
    return {"data": data, "has_more": False, "first_id": data[0]["id"], "last_id": data[-1]["id"]}
