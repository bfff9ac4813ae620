"""A small assignment ("fixture": two exercises) the grader's tests use, independent of the course's
lessons.

Loaded like an instructor's hidden tests (`--tests tests/hostile`), so its checks are hidden.
"""
from course.contract.exercise import CLIENT, RUN_TOOL, Check, CheckFailed, Exercise

PROMPT = "What is the capital of France?"


def expect(ok: bool, reason: str, hint: str = "") -> None:
    if not ok:
        raise CheckFailed(reason, hint)


def asks_once(ctx) -> None:
    out = ctx.call(CLIENT, PROMPT, scenario="one_shot")
    for status, reply in zip(out.statuses, out.replies, strict=True):
        if status != 200:
            raise CheckFailed(f"the API answered {status}: {reply['error']['message']}",
                              "send a valid conversation")
    expect(len(out.requests) == 1, f"{len(out.requests)} requests reached the API; expected 1")
    expect(out.requests[0]["messages"] == [{"role": "user", "content": PROMPT}],
           "the prompt was not sent as given")


def answers(ctx) -> None:
    out = ctx.call(CLIENT, PROMPT, scenario="one_shot")
    expect(out.value == "Paris", f"returned {out.value!r}; expected 'Paris'",
           "return the text of the reply")


def searches(ctx) -> None:
    out = ctx.call(RUN_TOOL, scenario="aurora_run")
    expect(out.tool_calls == [("search", {"query": "Aurora Run"}),
                              ("search", {"query": "Mara Voss"})],
           f"tools run: {out.tool_calls}; expected the two searches")


def finds_year(ctx) -> None:
    out = ctx.call(RUN_TOOL, scenario="aurora_run")
    expect(out.value == 1974, f"returned {out.value!r}; expected the number 1974")


EXERCISES = [
    Exercise("ask", "ask", "Ask the model once", [
        Check("sends one valid request with the prompt", asks_once),
        Check("returns the answer's text", answers),
    ], notebook="fixture.ipynb"),
    Exercise("lookup", "lookup", "Find a year with two searches", [
        Check("runs the two searches through run_tool", searches),
        Check("returns the year as a number", finds_year, points=2),
    ], notebook="fixture.ipynb"),
]
