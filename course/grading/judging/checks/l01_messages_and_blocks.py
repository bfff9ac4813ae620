"""Lesson 01, messages and blocks: a function that checks the pairing invariant P1-P3 (Def. 3.3).

first_violation(messages) -> (rule, index) | None
  rule is "P1", "P2" or "P3"; index is the earliest message where a rule breaks (P1 before P2 before
  P3 at one message): for P1 the first or last message, for P2 the assistant message whose tool_uses
  are not answered right (as the API's 400 names it), for P3 the message holding the stray
  tool_result. A list that keeps P1-P3 gives None.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/01_...) on
every list of up to four messages drawn from a few shapes (content as a string or as blocks),
sampled with a fixed seed.
"""
from __future__ import annotations

import functools
import itertools

from ....i18n import deferred, tr
from ....messages import assistant, text, tool_result, tool_use, user, violations
from .. import reference
from ..cases import pick
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/01_messages_and_blocks.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l01_*), named only when a student's function
# does exactly that
ORDER = deferred("comparing the result ids as a set: P2 wants them in the order of the tool_uses")
STRAY = deferred("never looking for stray tool_results (P3): a result after the leading ones, or "
                 "with no tool_use right before it")
USER_ONLY = deferred("looking for stray tool_results only in user messages: P3 holds for every "
                     "message, the assistant's too")
P1_FIRST = deferred("checking P1 at both ends before the other rules: the answer is the earliest "
                    "message that breaks a rule, whichever rule it is")
P2_AT_USER = deferred("reporting a P2 break at the message after the tool_use: the index is the "
                      "assistant message's, as the API's 400 names it")
STRING_CONTENT = deferred("reading every content as a list of blocks: a content given as a string "
                          "is one text block")

R1, R2 = tool_result("t1", "page 1"), tool_result("t2", "page 2")
SHAPES = {  # the messages lists are drawn from, by a short name for the feedback
    deferred("user 'q' (a string)"): {"role": "user", "content": "q"},
    "user [text]": user("Keep going."),
    deferred("assistant 'Hi.' (a string)"): {"role": "assistant", "content": "Hi."},
    "assistant [text, tool_use t1]": assistant("Let me look.",
                                               tool_use("t1", "search", {"query": "Aurora Run"})),
    "assistant [tool_use t1, tool_use t2]": assistant(
        tool_use("t1", "search", {"query": "Aurora Run"}),
        tool_use("t2", "search", {"query": "Mara Voss"})),
    "user [result t1]": user(R1),
    "user [result t1 (is_error)]": user(tool_result("t1", "offline", is_error=True)),
    "user [result t1, result t2, text]": user(R1, R2, "Keep going."),
    "user [result t2, result t1]": user(R2, R1),
    "user [text, result t1]": user("Here you go.", R1),
    "user [result t1, text, result t1]": user(R1, text("again"), R1),
    "user [result t1, result t1]": user(R1, R1),
    "assistant [text, result t5]": assistant("Here is what I found.", tool_result("t5", "?")),
}
UNSAMPLED = {  # shapes only in the lists of EXTRA: one in SHAPES would redraw every sample
    "user [tool_use t1]": user(tool_use("t1", "search", {"query": "Aurora Run"})),
}


@functools.cache
def lists() -> tuple[tuple[tuple[str, ...], str], ...]:
    """Every list of up to four shapes (four only when it starts with the user), with the
    reference's answer."""
    first_violation = reference.function(NOTEBOOK, "first_violation")
    names = list(SHAPES)
    made: list[tuple[str, ...]] = [()]
    for n in range(1, 5):
        made += [s for s in itertools.product(names, repeat=n) if n < 4 or s[0] == names[0]]
    return tuple((s, kind(first_violation([SHAPES[x] for x in s]), s)) for s in made)


def kind(answer, names: tuple[str, ...]) -> str:
    """Which rule a list tells apart: None, P1, P2, P3 when one thing breaks, "earliest" when
    several do."""
    if len({(v.rule, v.index) for v in violations([SHAPES[n] for n in names])}) > 1:
        return "earliest"
    return answer[0] if answer else "None"


U, A, ASK, ASK2 = (
    "user 'q' (a string)",
    "assistant 'Hi.' (a string)",
    "assistant [text, tool_use t1]",
    "assistant [tool_use t1, tool_use t2]",
)
# the lists every sample starts with: the material's breaks, one at a time, then together
KNOWN: dict[str, list[tuple[str, ...]]] = {
    "None": [(U,), (U, ASK, "user [result t1]"), (U, ASK2, "user [result t1, result t2, text]"),
             # two assistant messages in a row: P1-P3 do not forbid it
             (U, A, ASK, "user [result t1]")],
    "P1": [(), (A,), (U, A)],
    "P2": [(U, ASK2, "user [result t2, result t1]"), (U, ASK2, "user [result t1]"),
           (U, ASK, "user [text, result t1]"), (U, ASK, A, U)],
    "P3": [(U, ASK, "user [result t1, text, result t1]"),
           (U, "assistant [text, result t5]", "user [result t1]"),
           # a duplicate result after a call
           (U, A, "user [result t1]"), (U, ASK, "user [result t1, result t1]"),
           (U, ASK, "user [result t1, result t2, text]")],  # an extra one
    "earliest": [(U, ASK, "user [text]", A), (U, ASK2, "user [result t2, result t1]", A),
                 (U, ASK, A), (U, ASK), (A, ASK)],
}
EXTRA = {  # lists after each sample, of UNSAMPLED shapes
    # P2 is about the assistant's tool_uses: a user's is answered by nothing
    "None": [(U, "user [tool_use t1]")],
}


def cases_of(which: str, n: int, seed: int):
    """The known lists of one kind, then a fixed-seed sample of the other lists of that kind,
    shortest first."""
    def made() -> list[Case]:
        known = KNOWN[which]
        found = known + [s for s, k in lists() if k == which and s not in known]
        shapes = {**SHAPES, **UNSAMPLED}
        listed = pick(found, n, keep=len(known), seed=seed) + EXTRA.get(which, [])
        return [Case(functools.partial(call_text, s), ([shapes[x] for x in s],)) for s in listed]

    return made


KINDS = [cases_of("None", 8, 0), cases_of("P1", 8, 1), cases_of("P2", 12, 2), cases_of("P3", 10, 3),
         # the lists that keep the invariant, those that break P1, P2, P3, several
         cases_of("earliest", 16, 4)]

def call_text(names: tuple[str, ...]) -> str:
    """The call of a case, each shape named in the report's language."""
    return f"first_violation([{', '.join(tr(x) for x in names)}])"


EXERCISES = [
    exercise("first_violation", "first_violation", deferred("Checking the pairing invariant"),
             NOTEBOOK, [
        Rule(deferred("a list that keeps P1-P3 gives None"), KINDS[0], points=0.5),
        Rule(deferred("P1: the first and the last message are from the user (index 0 or the last "
                      "index; an empty list breaks it at 0)"), KINDS[1]),
        Rule(deferred("P2: each assistant tool_use answered first, in order, in the next user "
                      "message (index: the assistant message)"), KINDS[2]),
        Rule(deferred("P3: no other tool_result anywhere (index: the message holding it)"),
             KINDS[3]),
        Rule(deferred("several breaks: the earliest message, and P1 before P2 before P3 at one "
                      "message"), KINDS[4]),
        Rule(deferred("the list is left unchanged"), lambda: [c for kind in KINDS for c in kind()],
             ("after",), points=0.5),
    ]),
]
