"""Server-held conversations (the beta `thread` field the SDK's tool runner uses by default)."""
from __future__ import annotations

import anthropic
import pytest

from course.api import LocalAPI
from course.client import MODEL, make_client
from course.messages import tool_result, user
from course.scenarios import get
from course.scenarios.search import search

AURORA = get("aurora_run")


def create(client, messages, thread, **fields):
    return client.beta.messages.create(model=MODEL, max_tokens=256, messages=messages,
                                       thread=thread, **fields)


def test_continue_sends_only_new_messages_and_the_policy_sees_them_all():
    api = LocalAPI(AURORA.policy)
    client = make_client(api)
    reply = create(client, [user(AURORA.prompt)], {"type": "create"},
                   tools=AURORA.tools().definitions())
    while reply.stop_reason == "tool_use":
        use = reply.content[-1]
        reply = create(client, [user(tool_result(use.id, search(use.input["query"])))],
                       {"type": "continue", "previous_message_id": reply.id})
    assert reply.content[0].text == "1974"
    # the wire carried only the new turn
    assert [len(r.body["messages"]) for r in api.requests] == [1, 1, 1]
    assert "tools" not in api.requests[-1].body  # the held conversation keeps its fields


def test_continuing_an_unknown_message_is_a_400():
    client = make_client(LocalAPI(AURORA.policy), max_retries=0)
    with pytest.raises(anthropic.BadRequestError,
                       match="no conversation is held for message 'msg_nowhere'"):
        create(client, [user("and then?")],
               {"type": "continue", "previous_message_id": "msg_nowhere"})


def test_a_thread_of_an_unknown_type_is_a_400():
    client = make_client(LocalAPI(AURORA.policy), max_retries=0)
    with pytest.raises(anthropic.BadRequestError, match="expected tags: 'create', 'continue'"):
        create(client, [user(AURORA.prompt)], {"type": "fork"})


def test_without_a_thread_nothing_is_held():
    api = LocalAPI(AURORA.policy)
    reply = make_client(api).messages.create(model=MODEL, max_tokens=64,
                                             messages=[user(AURORA.prompt)],
                                             tools=AURORA.tools().definitions())
    with pytest.raises(anthropic.BadRequestError, match="no conversation is held"):
        create(make_client(api, max_retries=0), [user("and then?")],
               {"type": "continue", "previous_message_id": reply.id})
