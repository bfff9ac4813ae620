"""One pairing rule: the course's P1-P3 (`course.messages.violations`) and the local API's
validation agree on every generated history, except where they differ by design, named here:

- ORDER: P2 asks for the results in the order of the calls; the API accepts any order of the leading
  results.
- API-ONLY: the API also checks rules outside P1-P3 (unique tool_use ids in a message, well-formed
  blocks); the generated histories keep those, so the two rules meet only on pairing.
- PREFILL: a history may end with an assistant message without tool_use (a prefill, or a finished
  run), which `violations(..., final_assistant=True)` accepts as the API does.
"""
from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from course.api import APIError
from course.api.validate import validate_request
from course.client import MODEL
from course.messages import text, tool_result, tool_use, violations

IDS = st.sampled_from(["t1", "t2", "t3"])
ASSISTANT_BLOCK = st.one_of(st.just(text("Searching.")),
                            IDS.map(lambda i: tool_use(i, "search", {"query": i})),
                            IDS.map(lambda i: tool_result(i, "stray")))
USER_BLOCK = st.one_of(st.just(text("Go on.")), IDS.map(lambda i: tool_result(i, "found")))
MESSAGE = st.one_of(
    st.lists(ASSISTANT_BLOCK, min_size=1, max_size=3).map(
        lambda c: {"role": "assistant", "content": c}),
    st.lists(USER_BLOCK, min_size=1, max_size=3).map(lambda c: {"role": "user", "content": c}))


@st.composite
def near_valid(draw) -> list[dict]:
    """A well-paired loop history, then up to two small mistakes of the kinds loops make."""
    history = [{"role": "user", "content": [text("Go.")]}]
    for _ in range(draw(st.integers(0, 3))):
        ids = draw(st.lists(IDS, unique=True, max_size=3))
        said = [text("Searching.")] if draw(st.booleans()) or not ids else []
        history.append({"role": "assistant",
                        "content": said + [tool_use(i, "search", {}) for i in ids]})
        if ids or draw(st.booleans()):
            note = [text("Go on.")] if draw(st.booleans()) or not ids else []
            history.append({"role": "user",
                            "content": [tool_result(i, "found") for i in ids] + note})
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, len(history) - 1))
        content = history[i]["content"]
        mistake = draw(st.sampled_from(["drop block", "text first", "stray result", "drop message",
                                        "repeat block"]))
        if mistake == "drop block" and len(content) > 1:
            content.pop(draw(st.integers(0, len(content) - 1)))
        elif mistake == "text first":
            content.sort(key=lambda b: b["type"] != "text")
        elif mistake == "stray result":
            content.insert(draw(st.integers(0, len(content))), tool_result(draw(IDS), "stray"))
        elif mistake == "drop message" and len(history) > 1:
            history.pop(i)
        elif mistake == "repeat block":
            content.append(dict(content[-1]))
    return history


HISTORY = st.one_of(near_valid(), st.lists(MESSAGE, min_size=1, max_size=5))


def accepted(history: list[dict]) -> bool:
    try:
        validate_request({"model": MODEL, "max_tokens": 16, "messages": history})
    except APIError:
        return False
    return True


def calls(message: dict) -> list[str]:
    return (
        [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if message["role"] == "assistant"
        else []
    )


def leading_results(message: dict) -> list[str]:
    found = []
    for b in message["content"]:
        if b["type"] != "tool_result":
            break
        found.append(b["tool_use_id"])
    return found


def by_design(history: list[dict]) -> bool:
    """ORDER or API-ONLY: the cases where the two rules may differ."""
    for m, after in zip(history, history[1:] + [None], strict=True):
        ids = calls(m)
        if len(set(ids)) != len(ids):
            return True  # API-ONLY: duplicate tool_use ids in one message
        if ids and after is not None and after["role"] == "user":
            head = leading_results(after)[:len(ids)]
            if sorted(head) == sorted(ids) and head != ids:
                return True  # ORDER
    return False


@settings(max_examples=200, deadline=None)
@given(HISTORY)
def test_violations_are_empty_exactly_when_the_local_api_accepts_the_history(history):
    assume(not by_design(history))
    found = violations(history, final_assistant=True)
    assert (not found) == accepted(history), (found, history)


def test_the_named_differences_are_real():
    calls_ = {"role": "assistant",
              "content": [tool_use("t1", "search", {}), tool_use("t2", "search", {})]}
    swapped = [{"role": "user", "content": [text("q")]}, calls_,
               {"role": "user", "content": [tool_result("t2", "b"), tool_result("t1", "a")]}]
    assert accepted(swapped) and violations(swapped) and by_design(swapped)  # ORDER
    prefill = [{"role": "user", "content": [text("q")]},
               {"role": "assistant", "content": [text("The year is")]}]
    assert accepted(prefill) and not violations(prefill, final_assistant=True)  # PREFILL
