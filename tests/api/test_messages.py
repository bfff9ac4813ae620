"""Blocks, SDK objects as dicts, and the pairing invariant P1-P3 (Def. 3.3)."""
import pytest
from anthropic.types import Message

from course.messages import (
    as_dict,
    assistant,
    check_invariant,
    text,
    text_of,
    tool_result,
    tool_use,
    tool_uses,
    user,
    violations,
)


def turn(*ids):
    """An assistant message asking for one call per id, and the user message answering them."""
    return [assistant(*[tool_use(i, "read", {"path": i}) for i in ids]),
            user(*[tool_result(i, "ok") for i in ids])]


def rules(messages, **kw):
    return [v.rule for v in violations(messages, **kw)]


def test_a_well_formed_history_has_no_violation():
    h = [user("fix")] + turn("u1") + turn("u2", "u3")
    assert violations(h) == []
    check_invariant(h)
    assert violations(h + [assistant("done")], final_assistant=True) == []


def test_p1_first_and_last_message_are_from_the_user():
    assert rules([assistant("hi")]) == ["P1", "P1"]
    assert rules([]) == ["P1"]
    assert rules([user("q"), assistant("a")]) == ["P1"]  # a request must end with the user
    assert rules([user("q"), assistant(tool_use("u", "read", {}))], final_assistant=True) == [
        "P1",
        "P2",
    ]


def test_p2_a_missing_result_is_named():
    h = [user("fix"), assistant(tool_use("u1", "read", {}), tool_use("u2", "read", {})),
         user(tool_result("u1", "ok"))]
    (v,) = violations(h)
    # the assistant message, as the API's 400 names it
    assert (v.rule, v.index) == ("P2", 1) and "u2" in v.detail


def test_p2_results_out_of_order_or_after_text():
    h = [user("fix"), assistant(tool_use("u1", "r", {}), tool_use("u2", "r", {})),
         user(tool_result("u2", "b"), tool_result("u1", "a"))]
    assert rules(h) == ["P2"]
    h = [user("fix"), assistant(tool_use("u1", "r", {})),
         user(text("note"), tool_result("u1", "a"))]
    # exercise 10.2: text first breaks P2, and the result is misplaced
    assert rules(h) == ["P2", "P3"]


def test_p2_the_next_message_must_be_from_the_user():
    h = [user("fix"), assistant(tool_use("u1", "r", {})), assistant("x"), user("y")]
    assert "P2" in rules(h)


def test_p3_a_stray_result():
    assert rules([user(tool_result("u9", "?"))]) == ["P3"]
    assert rules([user("fix")] + turn("u1") + [user(tool_result("u1", "again"))]) == ["P3"]


def test_check_invariant_raises_on_the_first_violation():
    with pytest.raises(AssertionError, match="P2"):
        check_invariant([user("fix"), assistant(tool_use("u1", "r", {})), user("no result")])


def test_sdk_objects_become_dicts():
    m = Message.model_validate({"id": "m", "type": "message", "role": "assistant", "model": "x",
                                "content": [{"type": "text", "text": "hi "},
                                            {"type": "tool_use", "id": "u", "name": "n",
                                             "input": {"a": 1}}],
                                "stop_reason": "tool_use",
                                "usage": {"input_tokens": 1, "output_tokens": 1}})
    d = as_dict(m)
    assert d["content"][1] == {"type": "tool_use", "id": "u", "name": "n", "input": {"a": 1}}
    assert [u["id"] for u in tool_uses(m)] == ["u"] and text_of(m) == "hi "
    assert as_dict([m.content[0]]) == [{"type": "text", "text": "hi "}]


def test_a_string_content_is_one_text_block():
    assert text_of({"role": "user", "content": "plain"}) == "plain"
    assert tool_result("u", "bad", is_error=True)["is_error"] is True
    assert "is_error" not in tool_result("u", "fine")
