"""Gives the SDK one turn more than asked, counting the answer as lesson 04's loop does."""
import dataclasses

from claude_agent_sdk import ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import EXTRA_TURN as MISTAKE

GRADE_ID = "limited_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "max_turns stops the run with subtype error_max_turns",
    "the ResultMessage is returned although query() raises ResultError after it",
]


async def limited_run(prompt, options, max_turns, max_budget_usd):
    turns = None if max_turns is None else max_turns + 1  # the mistake: the SDK's cap is max_turns as it is
    limited = dataclasses.replace(options, max_turns=turns, max_budget_usd=max_budget_usd)
    result = None
    try:
        async for message in query(prompt=prompt, options=limited):
            if isinstance(message, ResultMessage):
                result = message
    except Exception:
        if result is None:
            raise
    return result
