"""What the checks share: failing with a hint, and reading what crossed the wire."""
from __future__ import annotations

from ...api import Conversation, Turn
from ...client import MODEL
from ...i18n import deferred, tr
from ...scenarios import Scenario, say
from ..exercise import CLIENT, RUN_TOOL, CheckFailed, Outcome


def expect(ok: bool, reason: str, hint: str = "") -> None:
    """Fail the check with `reason` (translated by the caller) and the likely mistake, `hint` (an English
    `deferred` sentence, translated by CheckFailed), unless `ok`."""
    if not ok:
        raise CheckFailed(reason, hint)


def returned(out: Outcome, hint: str = "") -> None:
    """The function returned (it did not raise)."""
    expect(out.error is None, tr("the function raised {error}").format(error=out.error), hint)


def accepted(out: Outcome, diagnose=lambda body: "") -> None:
    """Every request was answered 200; otherwise fail with the API's own message and `diagnose(body)`."""
    for k, status in enumerate(out.statuses):
        if status != 200:
            reply = out.replies[k] if k < len(out.replies) else {}
            message = (reply or {}).get("error", {}).get("message", "")
            raise CheckFailed(tr("request {number} was rejected by the API with {status}: {message}").format(
                number=k + 1, status=status, message=message), diagnose(out.requests[k]))


def loop_args(scenario: Scenario, prompt: str | None = None) -> list:
    """(client, model, tools, run_tool, prompt) for a loop running `scenario`."""
    return [CLIENT, MODEL, scenario.make_tools().definitions(), RUN_TOOL, scenario.prompt if prompt is None else prompt]


def pair(value) -> tuple:
    """A returned (answer, messages) pair; fail if the value has another shape."""
    expect(isinstance(value, list) and len(value) == 2 and isinstance(value[1], list),
           tr("expected a pair (answer, messages), got {value}").format(value=str(value)[:120]),
           deferred("return a tuple (answer, messages)"))
    return value[0], value[1]


def content(message: dict) -> list[dict]:
    """A message's content as a list of blocks (a string is one text block)."""
    c = message.get("content", [])
    return [{"type": "text", "text": c}] if isinstance(c, str) else list(c)


def text_of(message: dict) -> str:
    """The text blocks of a message (or of a reply: anything with `content`), joined."""
    return "".join(b.get("text", "") for b in content(message) if b.get("type") == "text")


def essential(block: dict) -> dict:
    """The fields of a block that carry its meaning (SDK dumps add others, e.g. citations)."""
    keep = {"text": ("type", "text"), "tool_use": ("type", "id", "name", "input"),
            "tool_result": ("type", "tool_use_id", "content")}.get(block.get("type"))
    if keep is None:
        return block
    out = {k: block.get(k) for k in keep}
    if block.get("type") == "tool_result":
        out["is_error"] = bool(block.get("is_error"))
    return out


def same_message(a: dict, b: dict) -> bool:
    """Two messages with the same role and the same blocks."""
    return a.get("role") == b.get("role") and [essential(x) for x in content(a)] == [essential(x) for x in content(b)]


def no_model(c: Conversation) -> Turn:
    return say("This scenario only runs tools.")


def tools_only(name: str, title: str, make_tools) -> Scenario:
    """A scenario for functions that run tools themselves and never call the model."""
    return Scenario(name, title, "", no_model, make_tools)


# What differs between two message lists, one dimension at a time. A hint names a cause only when the
# comparison makes it certain; otherwise the reason shows the first difference and no cause is named.
# The hints are English here (checks compare them) and translated where a check fails.
ADDED = deferred("adding messages: your list holds a message that the expected list does not (the why shows which)")
DROPPED = deferred("dropping messages: your list lacks a message that the expected list keeps (the why shows which)")
REORDERED = deferred("reordering messages: your list holds the expected messages, in another order")
ROLE = deferred("a message with the wrong role: assistant replies and user messages must alternate as sent")
IDS = deferred("wrong tool_use ids: each tool_result carries the id of the tool_use it answers")
IS_ERROR = deferred("a wrong is_error flag: a failed or refused call has is_error: true, a successful one does not")


def shown(value) -> str:
    """A value as the student's function returned it: JSON turned tuples into lists, so show pairs as tuples."""
    if isinstance(value, list) and not any(isinstance(v, dict) for v in value) and len(value) <= 3:
        return repr(tuple(value))
    return repr(value)


def brief(message: dict) -> str:
    """One message in a few words: its role and its blocks' types (and ids)."""
    parts = []
    for b in content(message):
        ident = b.get("id") or b.get("tool_use_id")
        text = (b.get("text") or "")[:30]
        parts.append(b.get("type", "?") + (f" {ident}" if ident else f" {text!r}" if text else ""))
    return f"{message.get('role')} [{', '.join(parts)}]"


def _is_subsequence(short: list, long: list) -> list[int] | None:
    """The indices of `long` left out when `short` is `long` with some items removed, or None."""
    left, j = [], 0
    for i, m in enumerate(long):
        if j < len(short) and same_message(short[j], m):
            j += 1
        else:
            left.append(i)
    return left if j == len(short) else None


def _field_difference(got: dict, want: dict) -> tuple[str, str]:
    """The first field that differs between two messages at the same place, and a hint if the field alone is wrong."""
    if got.get("role") != want.get("role"):
        return tr("role {got!r}, expected {want!r}").format(got=got.get("role"), want=want.get("role")), ROLE
    g, w = [essential(b) for b in content(got)], [essential(b) for b in content(want)]
    if len(g) != len(w):
        return tr("{got} blocks ({got_blocks}), expected {want} ({want_blocks})").format(
            got=len(g), got_blocks=brief(got), want=len(w), want_blocks=brief(want)), ""
    for j, (a, b) in enumerate(zip(g, w)):
        fields = [k for k in dict.fromkeys([*b, *a]) if a.get(k) != b.get(k)]
        if fields:
            k = fields[0]
            hint = {"tool_use_id": IDS, "is_error": IS_ERROR}.get(k, "") if len(fields) == 1 else ""
            return tr("block {number} field {field!r} is {got!r}, expected {want!r}").format(
                number=j + 1, field=k, got=str(a.get(k))[:60], want=str(b.get(k))[:60]), hint
    return tr("the same blocks"), ""


def first_difference(got: list, want: list) -> int:
    """The index of the first message that differs (the shorter list's length if one is the other's start)."""
    return next((i for i, (a, b) in enumerate(zip(got, want)) if not same_message(a, b)), min(len(got), len(want)))


def difference(got: list, want: list) -> tuple[str, str] | None:
    """None if the two message lists match; else (what differs, a hint naming the cause only if it is certain)."""
    if len(got) == len(want) and all(same_message(a, b) for a, b in zip(got, want)):
        return None
    if len(got) > len(want) and (extra := _is_subsequence(want, got)) is not None:
        return tr("{got} messages, expected {want}: yours adds {which}").format(
            got=len(got), want=len(want), which=_listed(got, extra)), ADDED
    if len(got) < len(want) and (missing := _is_subsequence(got, want)) is not None:
        return tr("{got} messages, expected {want}: yours lacks {which}").format(
            got=len(got), want=len(want), which=_listed(want, missing)), DROPPED
    if len(got) == len(want) and sorted(map(brief, got)) == sorted(map(brief, want)) and \
            all(any(same_message(a, b) for b in want) for a in got):
        k = first_difference(got, want)
        return tr("message {number} is {got}, expected {want}").format(
            number=k + 1, got=brief(got[k]), want=brief(want[k])), REORDERED
    if len(got) != len(want):
        k = first_difference(got, want)
        return tr("{got} messages, expected {want} (first difference at message {number})").format(
            got=len(got), want=len(want), number=k + 1), ""
    k = first_difference(got, want)
    what, hint = _field_difference(got[k], want[k])
    return tr("message {number}: {difference}").format(number=k + 1, difference=what), hint


SEPARATOR = deferred("; ")  # between the items of a list inside a sentence


def _listed(messages: list, indices: list[int]) -> str:
    """Some messages of a list, each as its number and brief."""
    one = tr("message {number} ({brief})")
    return tr(SEPARATOR).join(one.format(number=i + 1, brief=brief(messages[i])) for i in indices)


def same_messages(got: list, want: list, what: str, readings: list | None = None, named: dict | None = None) -> None:
    """Fail unless `got` is `want` (or one of the other accepted `readings`), saying what differs (`what` is
    translated by the caller); `named` maps a dimension's hint to the exercise's own words for it."""
    if any(difference(got, w) is None for w in [want, *(readings or [])]):
        return
    diff, hint = difference(got, want)
    raise CheckFailed(tr("{what}: {difference}").format(what=what, difference=diff), (named or {}).get(hint, hint))
