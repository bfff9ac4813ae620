"""Lesson 01, messages and blocks: a function that checks the pairing invariant P1-P3 (Def. 3.3).

first_violation(messages) -> (rule, index) | None
  rule is "P1", "P2" or "P3"; index is the message where it breaks: for P1 the first or last message,
  for P2 the assistant message whose tool_uses are not answered right, for P3 the message holding
  the stray tool_result. A list that keeps P1-P3 gives None.
"""
from __future__ import annotations

from ...i18n import deferred, tr
from ...messages import assistant, text, tool_result, tool_use, user
from ..exercise import Check, Exercise
from .common import expect, returned, shown

ORDER = deferred("comparing the result ids as a set: P2 wants them in the order of the tool_uses")
COUNT = deferred("checking only that some results exist: P2 wants one result per tool_use")
FIRST = deferred("not looking at the first blocks: P2 wants the results before any text")
FIRST_USER = deferred("forgetting the first half of P1: a conversation starts with a user message")
LAST = deferred("forgetting the second half of P1: a request ends with a user message")
STRAY = deferred("accepting a tool_result that answers no tool_use right before it (P3)")
EXTRA = deferred("accepting a second result for the same call after the leading ones (P3)")
NEXT = deferred("not checking that the message after a tool_use is a user message (P2)")
USER_ONLY = deferred("looking for stray tool_results only in user messages: P3 holds for every message, "
                     "the assistant's too")

ASK = assistant("Let me look.", tool_use("t1", "search", {"query": "Aurora Run"}),
                tool_use("t2", "search", {"query": "Mara Voss"}))
R1, R2 = tool_result("t1", "page 1"), tool_result("t2", "page 2")

VALID = [
    (deferred("a single prompt"), [user("When was she born?")]),
    (deferred("two results in order, then a note"), [user("q"), ASK, user(R1, R2, "Keep going.")]),
    (deferred("a failed call answered with is_error"),
     [user("q"), assistant(tool_use("t9", "search", {})), user(tool_result("t9", "offline", is_error=True))]),
    (deferred("two turns"), [user("q"), ASK, user(R1, R2), assistant(tool_use("t3", "search", {"query": "x"})),
                             user(tool_result("t3", "page 3"))]),
    (deferred("contents given as strings"),
     [{"role": "user", "content": "q"}, {"role": "assistant", "content": "Hi."},
      {"role": "user", "content": "Thanks."}]),
]
BROKEN = [  # (what, messages, (rule, index), the mistake a checker that misses it makes)
    (deferred("the first message is from the assistant"), [assistant("Hello."), user("q")], ("P1", 0), FIRST_USER),
    (deferred("the list ends with the assistant"), [user("q"), assistant("1974")], ("P1", 1), LAST),
    (deferred("the list ends with a string from the assistant"),
     [{"role": "user", "content": "q"}, {"role": "assistant", "content": "1974"}], ("P1", 1), LAST),
    (deferred("the list ends with an unanswered tool_use (P1 and P2 at one message)"), [user("q"), ASK],
     ("P1", 1), LAST),
    (deferred("a result is missing"), [user("q"), ASK, user(R1)], ("P2", 1), COUNT),
    (deferred("results in the wrong order"), [user("q"), ASK, user(R2, R1)], ("P2", 1), ORDER),
    (deferred("text before the results"), [user("q"), ASK, user("Here you go.", R1, R2)], ("P2", 1), FIRST),
    (deferred("an assistant message right after the tool_use"), [user("q"), ASK, assistant("Done."), user(R1, R2)],
     ("P2", 1), NEXT),
    (deferred("a result with no tool_use before it"), [user("q"), assistant("Hi."), user(tool_result("t7", "?"))],
     ("P3", 2), STRAY),
    (deferred("a second result for a call after the leading ones"), [user("q"), ASK, user(R1, R2, text("again"), R1)],
     ("P3", 2), EXTRA),
    (deferred("an unanswered tool_use and a stray result in one message (P2 and P3 at one message)"),
     [user("q"), assistant(tool_use("t1", "search", {}), tool_result("t9", "?")), user("No results.")],
     ("P2", 1), COUNT),
    (deferred("a tool_result inside an assistant message"),
     [user("q"), assistant("Here is what I found.", tool_result("t5", "?")), user("Thanks.")], ("P3", 1), USER_ONLY),
]


def valid(ctx) -> None:
    for what, messages in VALID:
        out = ctx.call(messages)
        returned(out)
        expect(out.value is None, tr("{what}: keeps P1-P3, but your function returned {value}").format(
            what=tr(what), value=shown(out.value)))


def broken(rules: tuple[str, ...]):
    def check(ctx) -> None:
        for what, messages, want, mistake in BROKEN:
            if want[0] not in rules:
                continue
            out = ctx.call(messages)
            returned(out)
            expect(out.value == list(want), tr("{what}: expected {want}, your function returned {value}").format(
                what=tr(what), want=want, value=shown(out.value)), mistake if out.value is None else "")

    return check


EXERCISES = [
    Exercise("first_violation", "first_violation", deferred("Checking the pairing invariant"), [
        Check(deferred("lists that keep P1-P3 give None"), valid),
        Check(deferred("P1: the first and the last message are from the user"), broken(("P1",))),
        Check(deferred("P2: every tool_use answered first, in order, in the next user message"), broken(("P2",))),
        Check(deferred("P3: no other tool_result anywhere"), broken(("P3",))),
    ], notebook="solutions/01_messages_and_blocks.ipynb"),
]
