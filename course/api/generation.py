"""Generation: the policy's turn made into the reply the real API would give to this request.

In order: the thinking blocks the request sends back are checked; the policy
(the toy model) proposes a turn; its calls go to the request's tools by role (a
deferred tool is first asked of ToolSearch); the request decides what may stay in it
(declared tools only, tool_choice, thinking for models that think); tool_use
ids and thinking signatures are given; the turn is cut where generation would
stop; usage is counted, with prompt caching.
"""
from __future__ import annotations

import hashlib
import json

from ..i18n import tr
from ..messages import content_blocks
from .cache import PromptCache
from .errors import APIError
from .models import Model
from .policy import CHOSEN_STOP_REASONS, Conversation, Policy, Turn
from .structured import answer_for, fitted
from .tokens import BLOCK_OVERHEAD, Tokenizer
from .toolset import STRUCTURED_OUTPUT, TOOL_SEARCH, for_role, loaded, unloaded

# tool_use ids given in a turn that started with a thinking block
THOUGHT_IDS = "toolu_local_thought_"


def generate(body: dict, served: Model, policy: Policy, cache: PromptCache, request_id: str,
             context_window: int | None = None,
             undeclared_tools: bool = False) -> tuple[dict, dict[int, str]]:
    """The Message JSON answering a valid request, and the partial input JSON of a tool_use cut by a
    limit."""
    count = served.tokenizer
    window = context_window or served.context_window
    n_in = count.input_tokens(body)
    if n_in > window:
        raise APIError(400, "invalid_request_error",
                       f"prompt is too long: {n_in} tokens > {window} maximum")
    dropped = check_thinking(body)
    conversation = Conversation(body)
    turn = ask(policy, conversation)
    # a request without tools gets no call at all
    undeclared_tools = undeclared_tools and bool(body.get("tools"))
    content = by_role(turn.content, body, undeclared_tools)
    content = final_answer(content, body)
    content = allowed(content, body, served, undeclared_tools)
    content = given_ids(content, body, sum(m["role"] == "assistant" for m in body["messages"]) + 1)
    stop = "tool_use" if conversation.forced else turn.stop_reason or (
        "tool_use" if any(b["type"] == "tool_use" for b in content) else "end_turn")
    content, stop, sequence, partial = cut(content, stop, body.get("stop_sequences") or [],
                                           body["max_tokens"], window - n_in, count)
    written, read = cache.use(body, served)
    n_written = sum(written.values())
    message = {
        "id": f"msg_local_{request_id.rsplit('_', 1)[1]}",
        "type": "message",
        "role": "assistant",
        "model": body["model"],
        "content": content,
        "stop_reason": stop,
        "stop_sequence": sequence,
        "usage": {"input_tokens": n_in - n_written - read,
                  "output_tokens": generated(content, stop, body["max_tokens"], window - n_in,
                                             count),
                  "cache_creation_input_tokens": n_written, "cache_read_input_tokens": read,
                  "cache_creation": {"ephemeral_5m_input_tokens": written["5m"],
                                     "ephemeral_1h_input_tokens": written["1h"]},
                  "service_tier": "standard"},
    }
    if stop == "refusal" and turn.stop_details:
        message["stop_details"] = turn.stop_details
    if dropped:
        message["input_transformations"] = dropped
    # the toy conversations are far below every edit's trigger: none applied
    if body.get("context_management"):
        message["context_management"] = {"applied_edits": []}
    return message, partial


def ask(policy: Policy, conversation: Conversation) -> Turn:
    """The policy's next turn. A policy that fails or answers wrongly is a 500 naming why, not
    retried."""
    try:
        turn = policy(conversation)
        if not isinstance(turn, Turn):
            raise TypeError(f"a policy must return a Turn, not {type(turn).__name__}")
        if turn.stop_reason is not None and turn.stop_reason not in CHOSEN_STOP_REASONS:
            raise ValueError(f"a policy cannot choose stop_reason {turn.stop_reason!r}; the "
                             "handler decides it")
    except APIError:
        raise  # a policy may answer with an API error of its own (Scripted and Replay do)
    except Exception as e:
        raise cannot_answer(f"the local API's policy failed: {type(e).__name__}: {e}") from e
    return turn


def cannot_answer(why: str) -> APIError:
    """No faithful reply: a 500 that says why, which the SDK does not retry."""
    return APIError(500, "api_error", why, {"x-should-retry": "false"})


# --- what the request allows -------------------------------------------------------------------

def by_role(content: list[dict], body: dict, undeclared_tools: bool = False) -> list[dict]:
    """The policy's calls, named by role, made calls to the request's tools, as a model would make
    them.

    Under tool_choice auto, a call to `search` goes to the callable tool named `search` or ending in
    `__search`; when that tool is deferred and not loaded yet, the turn is instead a call to
    ToolSearch selecting it. A call that no declared tool fits is left out, and a turn left with no
    call answers in text that it lacks the tool: never a call the request did not offer
    (LocalAPI(undeclared_tools=True) keeps such calls, to show a loop coping with an unknown tool).
    """
    if (body.get("tool_choice") or {"type": "auto"})["type"] != "auto":
        return content
    callable_, waiting = loaded(body), unloaded(body)
    out, wanted, missing = [], [], []
    for b in content:
        name = for_role(callable_, b["name"]) if b["type"] == "tool_use" else None
        if b["type"] != "tool_use" or name is not None:
            out.append(b if name is None else {**b, "name": name})
        elif (deferred := for_role(waiting, b["name"])) and for_role(callable_, TOOL_SEARCH):
            wanted.append(deferred)
        elif undeclared_tools:
            out.append(b)
        else:
            missing.append(b["name"])
    thoughts = [b for b in content if b["type"] == "thinking"]
    if wanted:  # first load the deferred tools, as a model does before it can call them
        return thoughts + [{"type": "tool_use", "id": "", "name": for_role(callable_, TOOL_SEARCH),
                            "input": {"query": "select:" + ",".join(dict.fromkeys(wanted))}}]
    if missing and not any(b["type"] == "tool_use" for b in out):
        # in the language the course speaks, as a scenario's text
        tools = tr(" or ").join(dict.fromkeys(missing))
        return thoughts + [{"type": "text", "text": tr("I cannot do that here: none of my tools "
                                                       "can {tools}.").format(
            tools=tools)}]
    return out


def final_answer(content: list[dict], body: dict) -> list[dict]:
    """A final text answer, when the request declares Claude Code's StructuredOutput tool, is the
    text and a call to it with the answer fitted to its schema, as the tool asks (Claude Code ends
    the run with that call)."""
    tool = next((t for t in loaded(body) if t.get("name") == STRUCTURED_OUTPUT), None)
    if tool is None or any(b["type"] == "tool_use" for b in content):
        return content
    answer = "".join(b["text"] for b in content if b["type"] == "text")
    value = answer_for(tool.get("input_schema") or {}, answer)
    if value is None:
        return content
    return content + [{"type": "tool_use", "id": "", "name": STRUCTURED_OUTPUT, "input": value}]


def allowed(content: list[dict], body: dict, served: Model, undeclared_tools: bool) -> list[dict]:
    """The turn as the request allows it.

    Under tool_choice "none" no call stays; under "any" or "tool" the reply is
    calls to allowed tools only, and a turn without one has its text answer
    fitted into the forced tool's input (under "any", the last declared tool it
    fits: frameworks declare their output tool last). Under "auto", `by_role`
    has already made every call one to a callable tool (or kept an undeclared one
    for LocalAPI(undeclared_tools=True)). disable_parallel_tool_use keeps the
    first call. Thinking stays only for models that think (5.x: on unless the
    request says `thinking: {"type": "disabled"}`), and not when a tool is
    forced (the reply then starts with the call).
    """
    choice = body.get("tool_choice") or {"type": "auto"}
    thinks = served.thinks and not thinking_off(body)
    declared = [t["name"] for t in loaded(body) if "name" in t]
    forced = choice["type"] in ("any", "tool")
    names = (
        {choice["name"]}
        if choice["type"] == "tool"
        else set(declared)
        if choice["type"] != "none"
        else set()
    )
    keep = []
    for b in content:
        if b["type"] == "thinking" and (not thinks or forced):
            continue
        if (
            b["type"] == "tool_use"
            and b["name"] not in names
            and not (undeclared_tools and choice["type"] == "auto")
        ):
            continue
        if b["type"] == "text" and forced:
            continue
        keep.append(dict(b))
    if forced and not any(b["type"] == "tool_use" for b in keep):
        keep.append(forced_call(content, body, [n for n in declared if n in names]))
    if choice.get("disable_parallel_tool_use"):
        first = next((i for i, b in enumerate(keep) if b["type"] == "tool_use"), None)
        keep = [b for i, b in enumerate(keep) if b["type"] != "tool_use" or i == first]
    schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
    return structured(keep, schema) if schema is not None else keep


def structured(content: list[dict], schema: dict) -> list[dict]:
    """Structured output (output_config.format): the answer as JSON valid for the schema; a turn
    that calls tools keeps its calls and no free text."""
    if any(b["type"] == "tool_use" for b in content):
        return [b for b in content if b["type"] != "text"]
    answer = "".join(b["text"] for b in content if b["type"] == "text")
    value = answer_for(schema, answer)
    if value is None:
        raise cannot_answer("the local API cannot make a value valid for the output_config.format "
                            "schema")
    return [b for b in content if b["type"] == "thinking"] + [{"type": "text", "text": json.dumps(
        value)}]


def forced_call(content: list[dict], body: dict, names: list[str]) -> dict:
    """A call to a forced tool carrying the turn's text answer fitted to the tool's input_schema:
    the last of `names` the answer fills (frameworks declare their output tool last), else the last
    one, its fields the answer cannot fill given their smallest values."""
    answer = "".join(b["text"] for b in content if b["type"] == "text")
    schemas = {t["name"]: t.get("input_schema") or {} for t in body["tools"] if "name" in t}
    name = next((n for n in reversed(names) if fitted(schemas[n], answer) is not None), names[-1])
    value = answer_for(schemas[name], answer)
    if value is None:
        raise cannot_answer("the local API cannot make a value valid for the input_schema of "
                            f"{name}")
    return {"type": "tool_use", "id": "", "name": name, "input": value}


# --- ids and thinking signatures ----------------------------------------------------------------

def given_ids(content: list[dict], body: dict, call: int) -> list[dict]:
    """tool_use blocks get ids (marked as such in a thinking turn) and thinking blocks get their
    signature."""
    thinking = bool(content) and content[0]["type"] == "thinking"
    prefix = history_digest(body, len(body["messages"])) if thinking else ""
    out = []
    for j, b in enumerate(content):
        if b["type"] == "tool_use" and not b.get("id"):
            b = {**b, "id": f"{THOUGHT_IDS if thinking else 'toolu_local_'}{call:03d}_{j}"}
        elif b["type"] == "thinking":
            b = {"type": "thinking", "thinking": b.get("thinking", ""),
                 "signature": signature(prefix, b)}
        out.append(b)
    return out


def history_digest(body: dict, end: int) -> str:
    """A digest of everything before messages[end]: system, tools and the messages, as the model
    read them.

    Deferred tools are left out: "Deferred tools are not included in the system-prompt prefix. When
    the model discovers a deferred tool through tool search, the definition is appended inline as a
    tool_reference block in the conversation history. The prefix is untouched" (platform docs, Tool
    use with prompt caching)."""
    tools = [t for t in body.get("tools") or [] if not t.get("defer_loading")]
    seen = [body.get("system"), tools, [comparable(m) for m in body["messages"][:end]]]
    return hashlib.sha256(json.dumps(seen, sort_keys=True, default=str).encode()).hexdigest()[:24]


def signature(prefix: str, block: dict) -> str:
    """What the thinking block is signed with: the history before it, and its own text."""
    own = hashlib.sha256((prefix + block.get("thinking", "")).encode()).hexdigest()[:24]
    return f"local.{prefix}.{own}"


def comparable(message: dict) -> dict:
    """A message without what does not change its meaning (cache_control, is_error: false,
    nulls)."""
    blocks = content_blocks(message["content"])
    keep = [{k: v for k, v in b.items() if k != "cache_control" and v is not None
             and (k, v) != ("is_error", False)}
            for b in blocks]
    return {"role": message["role"], "content": keep}


def thinking_off(body: dict) -> bool:
    """Whether the request turns thinking off (`thinking: {"type": "disabled"}`; a 5.x model thinks
    otherwise)."""
    return (body.get("thinking") or {}).get("type") == "disabled"


def check_thinking(body: dict) -> list[dict]:
    """The latest assistant message sends back its thinking blocks unmodified, after an unchanged
    history.

    With thinking.block_binding.prefix_mismatch_behavior "drop_block", a block whose history changed
    is removed from what the model reads instead (the toy model reads none of them anyway); the
    removals are returned, as the API reports them in `input_transformations` (the SDK's
    BetaThinkingDroppedInputTransformation)."""
    messages = body["messages"]
    i = next((i for i in range(len(messages) - 1, -1, -1) if messages[i]["role"] == "assistant"),
             None)
    if i is None or isinstance(messages[i]["content"], str):
        return []
    content = messages[i]["content"]
    thoughts = [j for j, b in enumerate(content) if b["type"] in ("thinking", "redacted_thinking")]
    thought_ids = any(b["type"] == "tool_use" and str(b.get("id")).startswith(THOUGHT_IDS)
                      for b in content)
    if (
        thought_ids
        and not thinking_off(body)
        and (not content or content[0]["type"] not in ("thinking", "redacted_thinking"))
    ):
        found = content[0]["type"] if content else "nothing"
        raise APIError(400, "invalid_request_error", (
            f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
            f"`{found}`. When "
            "`thinking` is enabled, a final `assistant` message must start with a thinking block "
            "(preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend "
            "you include thinking blocks from previous turns."))
    prefix = history_digest(body, i) if thoughts else ""
    drop = ((body.get("thinking") or {}).get("block_binding") or {}).get(
        "prefix_mismatch_behavior"
    ) == "drop_block"
    dropped = []
    for j in thoughts:
        block = content[j]
        if block["type"] != "thinking":
            continue  # redacted thinking carries encrypted data the local API does not sign
        parts = block["signature"].split(".")
        if len(parts) != 3 or signature(parts[1], block) != block["signature"]:
            raise APIError(400, "invalid_request_error", (
                f"messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the latest "
                "assistant message "
                "cannot be modified. These blocks must remain as they were in the original "
                "response."))
        if parts[1] != prefix and drop:
            dropped.append({"type": "thinking_dropped", "path": f"messages.{i}.content.{j}",
                            "reason": "prefix_binding_mismatch"})
        elif parts[1] != prefix:
            raise APIError(400, "invalid_request_error", (
                f"messages.{i}.content.{j}: Invalid `signature` in `thinking` block: the system "
                "prompt, the tools or "
                "an earlier message changed since this block was returned; the conversation must "
                "stay append-only."))
    return dropped


# --- where generation stops, and what it cost -----------------------------------------------------

def cut(content: list[dict], stop: str, stop_sequences: list[str], max_tokens: int, room: int,
        count: Tokenizer):
    """Cut a turn where generation would stop: a stop sequence, max_tokens, or the context window.

    Returns (content, stop_reason, stop_sequence, partial): partial maps the index
    of a tool_use cut midway to the input JSON generated before the cut.
    """
    limit, reason = (max_tokens, "max_tokens") if max_tokens <= room else (room, "model_context_"
                                                                                 "window_exceeded")
    out, used = [], 0
    for block in content:
        if block["type"] == "text":
            hits = [(block["text"].find(s), s) for s in stop_sequences if s in block["text"]]
            text, seq = block["text"], None
            if hits:
                at, seq = min(hits)
                text = text[:at]
            n = count.text_tokens(text)
            if used + n > limit:
                out.append({**block, "text": text[: int((limit - used) * 4 / count.factor)]})
                return [b for b in out if b.get("text", True)], reason, None, {}
            used += n
            if text:
                out.append({**block, "text": text})
            if seq is not None:
                return out, "stop_sequence", seq, {}
        else:
            n = count.block_tokens(block) - BLOCK_OVERHEAD
            if used + n > limit:
                if block["type"] != "tool_use":
                    return out, reason, None, {}
                # generation stopped inside the tool_use: its input JSON never closed
                raw = json.dumps(block["input"])
                partial = raw[: int(len(raw) * (limit - used) / n)]
                return out + [{**block, "input": {}}], reason, None, {len(out): partial}
            used += n
            out.append(block)
    return out, stop, None, {}


def generated(content: list[dict], stop: str, max_tokens: int, room: int, count: Tokenizer) -> int:
    """Output tokens: a turn cut at a limit generated up to it; any other reply at least 1, as the
    real API reports."""
    if stop == "max_tokens":
        return max_tokens
    if stop == "model_context_window_exceeded":
        return room
    return max(1, count.output_tokens(content))
