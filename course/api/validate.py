"""Request validation the way the Messages API does it: the first problem found
becomes a 400 invalid_request_error whose message names the field, as the real
API's do (`messages.2.content.0: ...`). An unknown model is a 404 once the
request is well formed; the model's own limits come last.

The accepted fields, tool types and content block types are the installed SDK's.
"""
from __future__ import annotations

import functools
import json
import re
import typing

import anthropic.types.beta as sdk_beta
from anthropic.types import message_count_tokens_params, message_create_params
from anthropic.types.beta import message_count_tokens_params as beta_count_params
from anthropic.types.beta import message_create_params as beta_create_params

from ..messages import content_blocks
from .cache import MAX_BREAKPOINTS, marks
from .errors import APIError
from .fields import check, invalid
from .models import Model, model

TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
ROLES = ("user", "assistant", "system")  # anthropic 2.14's MessageParam includes SystemMessageParam


def _declared(*typed_dicts) -> dict:
    """field -> the SDK's annotation of it, over the given TypedDicts (the later ones win)."""
    return {k: v for t in typed_dicts for k,
            v in typing.get_type_hints(t, include_extras=True).items()}


def _typed_dicts(union) -> list:
    """The SDK's TypedDicts in a union (nested unions included)."""
    found: list = []
    todo = [union]
    while todo:
        for arg in typing.get_args(todo.pop()):
            (found if hasattr(arg, "__required_keys__") else todo).append(arg)
    return found


def _types(union, keep=lambda typed_dict: True) -> frozenset:
    """Every `type` literal of a union of the SDK's TypedDicts, of those `keep` accepts."""
    return frozenset(kind for t in _typed_dicts(union) if keep(t)
                     for kind in re.findall(r"'([a-z0-9_]+)'",
                                            str(t.__annotations__.get("type", ""))))


class Safeguard(typing.TypedDict, total=False):
    """One entry of `safeguards`, which Claude Code sends in its auto and plan modes and the SDK's
    types do not declare: a server-side check to run beside the completion (OpenRouter documents
    Anthropic's as a `type`, e.g. "dangerous_tool_use", and a `classifier_context` object). The
    local API accepts it and runs none."""

    type: typing.Required[str]
    classifier_context: dict[str, object]


# what each field may hold, per the SDK's types (the beta ones, a superset); `stream` is True or
# False
DECLARED = {**_declared(message_create_params.MessageCreateParamsStreaming,
                        beta_create_params.MessageCreateParamsStreaming), "stream": bool,
            "safeguards": list[Safeguard]}
COUNT_DECLARED = _declared(message_count_tokens_params.MessageCountTokensParams,
                           beta_count_params.MessageCountTokensParams)
# betas: a header
FIELDS, COUNT_FIELDS = frozenset(DECLARED) - {"betas"}, frozenset(COUNT_DECLARED) - {"betas"}
# one entry, no name
TOOLSETS = _types(sdk_beta.BetaToolUnionParam, lambda t: "name" not in t.__annotations__)


def validate_request(body, *, count_only: bool = False) -> Model:
    """The model the request asks for; APIError for the first rule the request body breaks."""
    if not isinstance(body, dict):
        raise invalid("Request body must be a JSON object")
    extra = next((k for k in body if k not in (COUNT_FIELDS if count_only else FIELDS)), None)
    if extra is not None:
        raise invalid(f"{extra}: Extra inputs are not permitted")
    if "model" not in body:
        raise invalid("model: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise invalid("model: Input should be a valid string")
    if not count_only:
        if "max_tokens" not in body:
            raise invalid("max_tokens: Field required")
        if not isinstance(body["max_tokens"], int) or isinstance(body["max_tokens"], bool):
            raise invalid("max_tokens: Input should be a valid integer")
        if body["max_tokens"] < 0:
            raise invalid("max_tokens: Input should be greater than or equal to 0")
    # every field as the SDK's types declare it, then the API's own rules
    for name, value in body.items():
        check(value, (COUNT_DECLARED if count_only else DECLARED)[name], name)
    _validate_thinking(body.get("thinking"), body.get("max_tokens"))
    _validate_tools(body.get("tools"))
    _validate_tool_choice(body.get("tool_choice"), body.get("tools"))
    _validate_stop_sequences(body.get("stop_sequences"))
    _validate_messages(body.get("messages"), _names(body.get("tools")))
    _validate_cache_control(body)
    served = model(body["model"])
    if not count_only:
        _validate_for_model(body, served)
    return served


def _validate_for_model(body: dict, served: Model) -> None:
    """The model's own limits: its maximum output, and whether it can be forced to use a tool."""
    if body["max_tokens"] > served.max_output_tokens:
        raise invalid(f"max_tokens: {body['max_tokens']} > {served.max_output_tokens}, which is "
                      f"the maximum allowed number of output tokens for {served.id}")
    choice = body.get("tool_choice")
    if choice and choice["type"] in ("any", "tool") and not served.forced_tool_choice:
        raise invalid('tool_choice: type "tool" and "any" are not supported for this model.')


# the SDK's ThinkingConfigEnabledParam.budget_tokens: "Must be ≥1024 and less than `max_tokens`"
MIN_THINKING_BUDGET = 1024


def _validate_thinking(thinking, max_tokens: int | None) -> None:
    """An enabled thinking budget: at least the minimum, and below max_tokens (thinking tokens are
    output tokens)."""
    if not thinking or thinking["type"] != "enabled":
        return
    if thinking["budget_tokens"] < MIN_THINKING_BUDGET:
        raise invalid("thinking.enabled.budget_tokens: Input should be greater than or equal to "
                      f"{MIN_THINKING_BUDGET}")
    if max_tokens is not None and thinking["budget_tokens"] >= max_tokens:
        raise invalid(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult "
            "our documentation at "
            "https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-"
            "window-size"
        )


def _validate_stop_sequences(seqs) -> None:
    if seqs is None:
        return
    if not isinstance(seqs, list) or any(not isinstance(s, str) or not s.strip() for s in seqs):
        raise invalid("stop_sequences: each stop sequence must be a non-empty string that is not "
                      "only whitespace")


def _validate_tool_choice(choice, tools) -> None:
    """auto, any or tool only with tools, and a forced tool among them (its shape is the SDK's:
    fields.check)."""
    if choice is None:
        return
    if choice["type"] != "none" and not tools:
        raise invalid("tool_choice may only be specified while providing tools.")
    if choice["type"] == "tool" and choice["name"] not in {
        t.get("name") for t in tools if isinstance(t, dict)
    }:
        raise invalid(f"tool_choice.tool.name: no tool named {choice['name']!r} in tools")


def _validate_tools(tools) -> None:
    """Tool names unique and of the API's pattern, a custom tool's input_schema valid, not every
    tool deferred."""
    seen: set = set()
    for i, tool in enumerate(tools or []):
        # `"type": null` is a custom tool, as the SDK's ToolParam declares
        kind = tool.get("type") or "custom"
        # a toolset (computer_toolset_..., mcp_toolset) declares a family of tools: no name
        if kind in TOOLSETS:
            continue
        if not TOOL_NAME.match(tool["name"]):
            raise invalid(f"tools.{i}.{kind}.name: String should match pattern "
                          "'^[a-zA-Z0-9_-]{1,64}$'")
        if tool["name"] in seen:
            raise invalid("tools: Tool names must be unique.")
        seen.add(tool["name"])
        # an Anthropic-defined tool is not checked further: the API knows its schema
        if kind == "custom":
            _validate_input_schema(f"tools.{i}.custom", tool["input_schema"])
    if tools and all(t.get("defer_loading") for t in tools):
        raise invalid("tools: every tool has defer_loading: true; at least one tool must be loaded "
                      "(not deferred)")


def _validate_input_schema(where: str, schema: dict) -> None:
    """A custom tool's input_schema: an object schema, valid draft 2020-12."""
    if schema.get("type") != "object":
        raise invalid(f"{where}.input_schema.type: Input should be 'object'")
    if not _valid_schema(json.dumps(schema)):
        raise invalid(f"{where}.input_schema: JSON schema is invalid. It must match JSON Schema "
                      "draft 2020-12 "
                      "(https://json-schema.org/draft/2020-12).")


def _names(tools) -> frozenset:
    """The names of the declared tools (after _validate_tools)."""
    return frozenset(t["name"] for t in tools or [] if "name" in t)


@functools.lru_cache(maxsize=1024)
def _valid_schema(schema_json: str) -> bool:
    """Whether a tool's input_schema is valid draft 2020-12; cached, since the same tools come with
    every call."""
    import jsonschema  # imported on first use: it takes over a second to import

    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(schema_json))
    except jsonschema.SchemaError:
        return False
    return True


def _validate_cache_control(body: dict) -> None:
    """At most 4 cache breakpoints, counting tools, system blocks and message blocks."""
    found = marks(body)
    if found > MAX_BREAKPOINTS:
        raise invalid(f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. "
                      f"Found {found}.")


EMPTY = "all messages must have non-empty content except for the optional final assistant message"


def _blocks(message: dict, i: int, final: bool, tools: frozenset) -> list:
    """The message's blocks, checked one by one; `final`: the last message, when it is the
    assistant's."""
    content = message.get("content")
    if content is None:
        raise invalid(f"messages.{i}.content: Field required")
    # an empty string is no block at all (a final assistant message may be empty)
    if isinstance(content, str):
        content = content_blocks(content) if content else []
    if not isinstance(content, list):
        raise invalid(f"messages.{i}.content: Input should be a valid string or a list of content "
                      "blocks")
    if not content and not final:
        raise invalid(f"messages.{i}: {EMPTY}")
    for j, block in enumerate(content):
        _validate_block(block, i, j, tools)
    return content


def _validate_block(block: dict, i: int, j: int, tools: frozenset) -> None:
    """messages[i].content[j], whose shape fields.check has passed: the API's own rules for its
    type."""
    if block["type"] == "text":
        if not block["text"]:
            raise invalid(f"messages.{i}.content.{j}.text: text content blocks must be non-empty")
        if block["text"].isspace():
            raise invalid(f"messages.{i}.content.{j}.text: text content blocks must contain "
                          "non-whitespace text")
    elif block["type"] == "tool_result":
        _validate_references(block.get("content"), f"messages.{i}.content.{j}.tool_result.content",
                             tools)


def _validate_references(content, where: str, tools: frozenset) -> None:
    """tool_reference blocks in a tool_result (a client-side tool search's answer) name declared
    tools."""
    for k, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") == "tool_reference":
            if not isinstance(block.get("tool_name"), str):
                raise invalid(f"{where}.{k}.tool_reference.tool_name: Field required")
            if block["tool_name"] not in tools:
                raise invalid(f"{where}.{k}: tool_reference names {block['tool_name']!r}, which is "
                              "not a tool in "
                              "tools")


def _validate_messages(messages, tools: frozenset = frozenset()) -> None:
    """Every message's shape, then the pairing rules over the user and assistant messages: system
    messages (anywhere in the list) are passed over, as the API does."""
    _validate_roles(messages)
    talk = [i for i, m in enumerate(messages) if m["role"] != "system"]  # the turns, in order
    contents = []
    for i, m in enumerate(messages):
        final = bool(talk) and i == talk[-1] and m["role"] == "assistant"
        contents.append(_blocks(m, i, final, tools))
        if (
            final
            and contents[-1]
            and contents[-1][-1]["type"] == "text"
            and contents[-1][-1]["text"][-1:].isspace()
        ):
            raise invalid("messages: final assistant content cannot end with trailing whitespace")
    if not talk or messages[talk[0]]["role"] != "user":
        raise invalid('messages: first message must use the "user" role')
    _validate_pairing(messages, talk, contents)


def _validate_roles(messages) -> None:
    """A non-empty list of dicts, each with a role the API knows."""
    if messages is None:
        raise invalid("messages: Field required")
    if not isinstance(messages, list):
        raise invalid("messages: Input should be a valid list")
    if not messages:
        raise invalid("messages: at least one message is required")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise invalid(f"messages.{i}: Input should be a valid dictionary")
        if m.get("role") not in ROLES:
            # a role outside ROLES; the wording names the two roles that take turns (system is
            # accepted too)
            raise invalid(f"messages.{i}.role: Input should be 'user' or 'assistant'")


def _validate_pairing(messages: list, talk: list, contents: list) -> None:
    """P1-P3 over the turns `talk` (indices of the user and assistant messages): unique tool_use ids
    answered by the next user message, tool_results only there."""
    prev_ids: set = set()  # the tool_use ids of the previous turn when it is the assistant's
    for n, i in enumerate(talk):
        m, content = messages[i], contents[i]
        if m["role"] == "assistant":
            ids = [b["id"] for b in content if b["type"] == "tool_use"]
            if len(set(ids)) != len(ids):
                raise invalid(f"messages.{i}: `tool_use` ids must be unique")
            if "tool_result" in [b["type"] for b in content]:
                raise invalid(f"messages.{i}: `tool_result` blocks can only be in user messages")
            if ids:
                _validate_answer(i, ids, talk[n + 1] if n + 1 < len(talk) else None, messages,
                                 contents)
            prev_ids = set(ids)
        else:
            for j, b in enumerate(content):
                if b["type"] == "tool_result" and b["tool_use_id"] not in prev_ids:
                    raise invalid(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                                  f"`tool_result` blocks: {b['tool_use_id']}. Each `tool_result` "
                                  "block must have a corresponding `tool_use` "
                                  "block in the previous message.")
            prev_ids = set()


def _validate_answer(i: int, ids: list, after: int | None, messages: list, contents: list) -> None:
    """The turn after an assistant tool_use (messages[after]) must start with one tool_result per id
    (P2, P3)."""
    if after is None or messages[after]["role"] != "user":
        raise _unanswered(i, ids)
    content = contents[after]
    seen: list[str] = []
    for j, b in enumerate(content):
        if b["type"] != "tool_result":
            continue
        if b["tool_use_id"] in seen:
            raise invalid(f"messages.{after}.content.{j}: each `tool_use` must have a single "
                          "result. Found multiple `tool_result` blocks with id: "
                          f"{b['tool_use_id']}")
        seen.append(b["tool_use_id"])
    missing = [u for u in ids if u not in seen]
    if missing:
        raise _unanswered(i, missing)
    leading = next((j for j, b in enumerate(content) if b["type"] != "tool_result"), len(content))
    if leading < len(ids):
        raise invalid(f"messages.{after}: Did not find {len(ids) - leading} `tool_result` block(s) "
                      "at the beginning "
                      "of this message. Messages following `tool_use` blocks must begin with a "
                      "matching number of `tool_result` blocks.")


def _unanswered(i: int, ids: list) -> APIError:
    return invalid(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                   f"immediately after: {', '.join(ids)}. Each `tool_use` block must have a "
                   "corresponding `tool_result` block in the "
                   "next message.")
