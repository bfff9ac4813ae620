"""The documented approximate token count behind `usage`."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from course.api import MODELS, tokens
from course.messages import assistant, text, tool_result, tool_use, user


def test_the_documented_rule_by_hand():
    # 8 per request + 4 per message + 3 per block + ceil(characters / 4 x 1.3) for the current
    # generation
    assert tokens.input_tokens({"messages": [user("hi")]}) == 8 + 4 + 3 + 1
    assert tokens.input_tokens({"messages": [user("12345")]}) == 8 + 4 + 3 + 2  # 1.625 -> 2
    assert tokens.input_tokens({"system": "abcd", "messages": [user("hi")]}) == 2 + 16  # 1.3 -> 2


def test_tool_use_counts_its_name_and_compact_json_input():
    block = tool_use("t1", "search", {"query": "Mara Voss"})
    # "search" is 6 x 1.3 / 4 -> 2 tokens; {"query":"Mara Voss"} is 21 characters, 21 x 1.3 / 4 -> 7
    # tokens
    assert tokens.output_tokens([block]) == 2 + 7


def test_tool_result_counts_its_content():
    # exactly 13: integer arithmetic, no float
    assert tokens.block_tokens(tool_result("t1", "x" * 40)) == 3 + 13


def test_the_current_generation_counts_about_30_percent_more_than_haiku_4_5():
    old, new = MODELS["claude-haiku-4-5"].tokenizer, MODELS["claude-haiku-5-5"].tokenizer
    page = "Mara Voss (born 1974) is a Norwegian film director, known for Aurora Run (2011). " * 20
    assert old.text_tokens(page) == 405 and new.text_tokens(page) == 527  # 1,620 characters
    assert new.input_tokens({"messages": [user(page)]}) > old.input_tokens(
        {"messages": [user(page)]})


words = st.text(alphabet="abc 19", min_size=1, max_size=60)
messages = st.lists(st.builds(lambda s, who: (user if who else assistant)(text(s)), words,
                              st.booleans()), max_size=6)


@given(messages, messages)
def test_input_tokens_are_additive_over_messages(head, tail):
    """Def. 5.1: n(h + t) = n(h) + the cost of t's messages, so per-call input grows linearly with
    the history."""
    both = tokens.input_tokens({"messages": head + tail})
    assert both == tokens.input_tokens({"messages": head}) + sum(
        tokens.message_tokens(m) for m in tail)


@given(words, words)
def test_longer_text_never_costs_less(a, b):
    assert tokens.text_tokens(a + b) >= max(tokens.text_tokens(a), tokens.text_tokens(b))
