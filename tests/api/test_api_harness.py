"""What a harness sends, accepted as the real API accepts it (anthropic 2.14's types declare each
shape), and what the real API still rejects: system-role messages, nameless toolsets, `type: null`,
deferred tools loaded by a tool_reference, the anthropic-beta header and ?beta=true,
context_management. Claude Code sends every one of them.
"""
from __future__ import annotations

import anthropic
import pytest

from course.api import Conversation, LocalAPI, Scripted, Turn
from course.api.tokens import input_tokens, message_tokens
from course.client import MODEL, make_client
from course.messages import assistant, text, tool_result, tool_use, user
from course.scenarios import call, get

SEARCH = {"name": "search", "description": "Search.",
          "input_schema": {"type": "object", "properties": {}}}
MCP_SEARCH = {**SEARCH, "name": "mcp__course__search", "defer_loading": True}
TOOL_SEARCH = {"name": "ToolSearch", "description": "Load deferred tools.",
               "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}}}
NOTE = {"role": "system", "content": [{"type": "text", "text": "The user's time zone is UTC."}]}
MARK = {"cache_control": {"type": "ephemeral"}}


@pytest.fixture
def api():
    return LocalAPI(Scripted([], then=Turn([text("ok")])))


def post(api, **body) -> dict:
    """The reply to `body` sent through the genuine SDK's beta client (with an anthropic-beta
    header)."""
    client = make_client(api, max_retries=0)
    reply = client.beta.messages.create(model=MODEL, max_tokens=64,
                                        betas=["context-management-2025-06-27"], **body)
    return reply.model_dump(exclude_none=True)


def rejected(api, **body) -> str:
    with pytest.raises(anthropic.BadRequestError) as info:
        post(api, **body)
    return info.value.body["error"]["message"]


def reminded(prompt: str) -> dict:
    """A user message as Claude Code sends it: a system reminder, then the user's words."""
    return user("<system-reminder>\nAttribution for git commits.\n</system-reminder>\n", prompt)


# --- system-role messages
# ----------------------------------------------------------------------------------

def test_a_conversation_ending_with_a_system_message_is_answered(api):
    assert post(api, messages=[reminded("Hi"), NOTE])["content"] == [{"type": "text", "text": "ok"}]


def test_a_system_message_costs_input_tokens_as_any_message():
    body = {"model": MODEL, "max_tokens": 64, "messages": [user("Hi")]}
    with_note = {**body, "messages": [user("Hi"), NOTE]}
    assert input_tokens(with_note) - input_tokens(body) == message_tokens(NOTE) > 0


def test_a_system_messages_cache_control_counts_among_the_four_breakpoints(api):
    marked = {"role": "system", "content": [{"type": "text", "text": "note", **MARK}]}
    system = [{"type": "text", "text": f"part {i}", **MARK} for i in range(3)]
    assert post(api, system=system, messages=[user("Hi"), marked])["stop_reason"] == "end_turn"
    message = rejected(api, system=system + [{"type": "text", "text": "part 3", **MARK}],
                       messages=[user("Hi"), marked])
    assert message == "A maximum of 4 blocks with cache_control may be provided. Found 5."


def test_the_pairing_rules_pass_over_system_messages(api):
    asked = [user("Where?"), assistant(tool_use("a", "search", {}))]
    assert post(api, messages=asked + [NOTE, user(tool_result("a", "x")), NOTE], tools=[SEARCH])[
        "content"
    ]
    assert "without `tool_result` blocks immediately after: a" in rejected(
        api, messages=asked + [NOTE, user("never mind")], tools=[SEARCH])
    assert rejected(api, messages=[NOTE, assistant("Hello."), user("Hi")]) == \
        'messages: first message must use the "user" role'
    assert rejected(api, messages=[NOTE]) == 'messages: first message must use the "user" role'


def test_what_a_system_message_cannot_hold_is_still_a_400(api):
    image = {"type": "image", "source": {"type": "url", "url": "https://example.com/a.png"}}
    assert rejected(api, messages=[user("Hi"), {"role": "system", "content": [image]}]).startswith(
        "messages.1.content.0: Input tag 'image' found using 'type' does not match any of the "
        "expected tags: 'text', 'tool_addition', 'tool_removal'")
    assert rejected(api, messages=[user("Hi"), {"role": "system", "content": ""}]).startswith(
        "messages.1: all messages must have non-empty content")
    assert rejected(api, messages=[user("Hi"), {"role": "tool", "content": "x"}]) == \
        "messages.1.role: Input should be 'user' or 'assistant'"


def test_a_policy_reads_the_users_words_without_system_messages_or_reminders():
    c = Conversation({"messages": [reminded("Count the Python files."), NOTE]})
    assert c.prompt == "Count the Python files." and [m["role"] for m in c.messages] == ["user"]
    assert c.results() == [] and c.calls_so_far == 0


# --- tools: nameless toolsets, type null
# --------------------------------------------------------------------

def test_a_toolset_without_a_name_is_accepted_and_with_a_name_rejected(api):
    assert post(api, messages=[user("Hi")], tools=[SEARCH, {"type": "computer_toolset_20260801"}])[
        "content"
    ]
    assert rejected(api, messages=[user("Hi")],
                    tools=[{"type": "computer_toolset_20260801", "name": "computer"}]) \
        == "tools.0.computer_toolset_20260801.name: Extra inputs are not permitted"


def test_a_custom_tool_with_type_null_is_a_custom_tool(api):
    assert post(api, messages=[user("Hi")], tools=[{**SEARCH, "type": None}])["content"]
    assert rejected(api, messages=[user("Hi")], tools=[{**SEARCH, "type": "gadget"}]).startswith(
        "tools.0: Input tag 'gadget' found using 'type'")
    assert rejected(api, messages=[user("Hi")],
                    tools=[{"type": None, "input_schema": SEARCH["input_schema"]}]) \
        == "tools.0.custom.name: Field required"


# --- deferred tools and tool_reference
# ---------------------------------------------------------------------

def test_a_deferred_tool_is_first_asked_of_tool_search_then_called_once_referenced():
    api = get("aurora_run").api()
    tools = [TOOL_SEARCH, MCP_SEARCH]
    first = post(api, messages=[user(get("aurora_run").prompt)], tools=tools)["content"]
    assert first == [{"type": "tool_use", "id": "toolu_local_001_0", "name": "ToolSearch",
                      "input": {"query": "select:mcp__course__search"}}]
    loaded = [{"type": "tool_reference", "tool_name": "mcp__course__search"}]
    history = [user(get("aurora_run").prompt),
               assistant(tool_use("t1", "ToolSearch", first[0]["input"])),
               user({"type": "tool_result", "tool_use_id": "t1", "content": loaded})]
    second = post(api, messages=history, tools=tools)["content"]
    assert [(b["name"], b["input"]) for b in second] == [("mcp__course__search",
                                                          {"query": "Aurora Run"})]


def test_a_tool_only_announced_by_name_in_a_system_message_is_deferred_too():
    announced = {"role": "system",
                 "content": "Deferred tools, load them with ToolSearch:\nmcp__course__search\n"}
    reply = post(get("aurora_run").api(), messages=[user(get("aurora_run").prompt), announced],
                 tools=[TOOL_SEARCH])
    assert [(b["name"], b["input"]) for b in reply["content"]] == [
        ("ToolSearch", {"query": "select:mcp__course__search"})
    ]


def test_a_deferred_tool_is_never_called_before_it_is_referenced():
    # no ToolSearch to load it with: the toy model answers in text rather than call a tool it cannot
    # see
    reply = post(
        get("aurora_run").api(),
        messages=[user(get("aurora_run").prompt)],
        tools=[SEARCH | {"name": "x"}, MCP_SEARCH],
    )
    assert reply["content"][0]["text"] == "I cannot do that here: none of my tools can search."


def test_a_deferred_tool_costs_no_input_tokens_until_referenced():
    body = {"model": MODEL, "max_tokens": 64, "messages": [user("Hi")], "tools": [TOOL_SEARCH]}
    assert input_tokens({**body, "tools": [TOOL_SEARCH, MCP_SEARCH]}) == input_tokens(body)
    referenced = [
        user("Hi"),
        assistant(tool_use("t1", "ToolSearch", {})),
        user(
            {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": [{"type": "tool_reference", "tool_name": "mcp__course__search"}],
            }
        ),
    ]
    assert input_tokens(
        {**body, "messages": referenced, "tools": [TOOL_SEARCH, MCP_SEARCH]}
    ) > input_tokens({**body, "messages": referenced})


def test_what_the_api_rejects_about_deferred_tools_is_still_a_400(api):
    assert rejected(api, messages=[user("Hi")], tools=[MCP_SEARCH]) == (
        "tools: every tool has defer_loading: true; at least one tool must be loaded (not "
        "deferred)")
    assert rejected(api, messages=[user("Hi")], tools=[{**SEARCH, "defer_loading": "yes"}]) == (
        "tools.0.custom.defer_loading: Input should be a valid boolean")
    unknown = [user("Hi"), assistant(tool_use("t1", "ToolSearch", {})), user(
        {"type": "tool_result", "tool_use_id": "t1",
         "content": [{"type": "tool_reference", "tool_name": "nope"}]})]
    assert rejected(api, messages=unknown, tools=[TOOL_SEARCH]) == (
        "messages.2.content.0.tool_result.content.0: tool_reference names 'nope', which is not a "
        "tool in tools")


def test_a_scenarios_tools_are_found_by_role_whoever_hosts_them():
    c = Conversation({"messages": [user("Hi")],
                      "tools": [{**SEARCH, "name": "mcp__course__search"}, TOOL_SEARCH]})
    assert c.tool("search") == "mcp__course__search" and c.tool("ToolSearch") == "ToolSearch"
    assert c.tool("edit_file") is None
    api = LocalAPI(Scripted([Turn([call("search", query="x")])]))
    reply = post(api, messages=[user("Hi")], tools=[{**SEARCH, "name": "mcp__course__search"}])
    assert reply["content"][0]["name"] == "mcp__course__search"


# --- the beta header, ?beta=true, context_management
# -------------------------------------------------------

def test_the_beta_header_and_query_are_accepted_and_recorded(api):
    # as Claude Code posts (the Python SDK does not)
    post(api, messages=[user("Hi")], extra_query={"beta": "true"})
    assert api.requests[-1].query == "beta=true" and api.requests[-1].status == 200
    assert api.requests[-1].headers["anthropic-beta"] == "context-management-2025-06-27"
    assert "authorization" not in api.requests[-1].headers  # the token is never recorded


@pytest.mark.parametrize("stream", [False, True])
def test_context_management_is_answered_as_the_api_answers_it(api, stream):
    edits = {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}
    client = make_client(api, max_retries=0)
    options = dict(model=MODEL, max_tokens=64, messages=[user("Hi")], context_management=edits,
                   betas=["context-management-2025-06-27"])
    if stream:
        with client.beta.messages.stream(**options) as s:
            reply = s.get_final_message()
    else:
        reply = client.beta.messages.create(**options)
    # nothing to clear in a conversation this small
    assert reply.context_management.applied_edits == []
    assert "context_management" not in client.beta.messages.create(
        **{**options, "context_management": None}
                                                                    ).model_dump(exclude_none=True)


def test_an_unknown_context_management_edit_is_a_400(api):
    assert rejected(api, messages=[user("Hi")],
                    context_management={"edits": [{"type": "forget_everything"}]}) \
        .startswith("context_management.edits.0: Input tag 'forget_everything' found using 'type' "
                    "does not match any of the expected tags: 'clear_tool_uses_20250919'")


# --- safeguards (Claude Code's auto and plan modes)
# --------------------------------------------------------

SAFEGUARD = {"type": "dangerous_tool_use",
             "classifier_context": {"v": 1, "permission_mode": "auto"}}


def test_claude_codes_safeguards_are_accepted_and_checked_for_shape(api):
    assert post(api, messages=[user("Hi")], extra_body={"safeguards": [SAFEGUARD]})["content"]
    assert rejected(api, messages=[user("Hi")],
                    extra_body={"safeguards": [{"classifier_context": {}}]}) == \
        "safeguards.0.type: Field required"
    assert rejected(api, messages=[user("Hi")],
                    extra_body={"safeguards": {"type": "dangerous_tool_use"}}) == \
        "safeguards: Input should be a valid list"
