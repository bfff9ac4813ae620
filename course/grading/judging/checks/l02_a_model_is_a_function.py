"""Lesson 02, a model is a function: the API keeps no state, so a follow-up resends the history.

follow_up(client, model, first, second) -> str
  asks `first`, then `second` in the same conversation; returns the text of the second answer.

Each rule is one sentence of the exercise's text, judged against the reference (solutions/02_...) on
generated cases: every served model id, two question pairs, a first reply that starts with an
(empty) thinking block, a second answer in two text blocks.
"""
from __future__ import annotations

from ....api import Conversation, Turn
from ....client import MODEL, MODELS
from ....contract.exercise import CLIENT
from ....i18n import deferred, tr
from ....scenarios import Scenario, say
from ..oracle import Case, Rule, exercise

NOTEBOOK = "solutions/02_a_model_is_a_function.ipynb"

# the known mistakes' causes (grading/judging/mistakes/l02_*), named only when a student's function
# does exactly that
STATELESS = deferred("sending only the new question: the API remembers nothing, every request "
                     "carries the whole conversation")
NO_REPLY = deferred("leaving out the model's first answer: the history is question, answer, "
                    "question")
FIXED_MODEL = deferred("sending a model id of your own: every request goes to the `model` argument")
FIRST_BLOCK = deferred("taking the first content block as the answer: a reply may start with a "
                       "thinking block, and its text is every text block")

PAIRS = {  # first question, its answer, the follow-up, the answer only the whole history allows
    "aurora": ("Who directed the film Aurora Run?", "Aurora Run (2011) was directed by Mara Voss.",
               "When was she born?", "Mara Voss was born in 1974."),
    "paris": ("What is the capital of France?", "The capital of France is Paris.",
              "How many people live there?", "About 2.1 million people live in Paris."),
}
OTHER_MODELS = [MODELS["sonnet"], MODELS["opus"], "claude-haiku-4-5"]


def follow_up_policy(pair: str, *, thinks: int = 0, split: bool = False):
    """Answers the first question; answers the follow-up only when the request carries the first
    answer. The first `thinks` replies start with an empty thinking block."""
    first, answer, second, known = PAIRS[pair]
    thought = [{"type": "thinking", "thinking": ""}]

    def policy(c: Conversation) -> Turn:
        asked = "".join(b.get("text", "") for b in c.last["content"] if b["type"] == "text")
        if asked != second:
            return say(*thought[:thinks], answer)
        if any(answer in b.get("text", "") for m in c.messages if m["role"] == "assistant"
               for b in m["content"]):
            cut = known.index(" ", known.index(" ") + 1)
            again = thought[:thinks - 1]
            return say(*again, known[:cut], known[cut:]) if split else say(*again, known)
        return say("Who do you mean? This conversation has no earlier messages about anyone.")

    return policy


def case(pair: str = "aurora", model: str = MODEL, *, thinks: int = 0, split: bool = False) -> Case:
    first, _, second, _ = PAIRS[pair]
    how = "".join(
        [["", tr(", the first reply thinks first"), tr(", both replies think first")][thinks],
                   tr(", the second answer in two text blocks") if split else ""])
    sc = Scenario(f"grading_follow_up_{pair}", f"follow_up({model!r}, {first!r}, {second!r}){how}",
                  first, follow_up_policy(pair, thinks=thinks, split=split))
    return Case(sc.title, (CLIENT, model, first, second), {}, sc)


def model_cases() -> list[Case]:
    return [case("aurora", m) for m in OTHER_MODELS]


def conversation_cases() -> list[Case]:
    return [case("aurora"), case("paris", MODELS["sonnet"]),
            case("aurora", MODELS["opus"], thinks=1)]


def answer_cases() -> list[Case]:
    return [*conversation_cases(), case("paris", thinks=2, split=True)]


def models_sent(requests):
    return [{"model": r.get("model")} for r in requests]


def first_request(requests):
    return [{"messages": r.get("messages")} if k == 0 else {} for k, r in enumerate(requests)]


def later_requests(requests):
    return [{"messages": r.get("messages")} if k else {} for k, r in enumerate(requests)]


EXERCISES = [
    exercise("follow_up", "follow_up", deferred("A follow-up question to a stateless API"),
             NOTEBOOK, [
        Rule(deferred("every request goes to the model given"), model_cases, ("requests",),
             loose=models_sent),
        Rule(deferred("two requests; the first asks `first` alone"), conversation_cases,
             ("requests",), loose=first_request),
        Rule(deferred("the second request carries `first`, the first reply exactly as received, "
                      "and `second`"),
             conversation_cases, ("requests",), loose=later_requests),
        Rule(deferred("the return value is the text of the second answer"), answer_cases,
             ("value",)),
    ]),
]
