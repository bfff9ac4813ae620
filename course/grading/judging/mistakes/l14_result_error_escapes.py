"""Passes both limits, but lets query()'s ResultError escape after an error result."""
import dataclasses

from claude_agent_sdk import ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import ESCAPES as MISTAKE

GRADE_ID = "limited_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "max_turns stops the run with subtype error_max_turns",
    "max_budget_usd stops the run with subtype error_max_budget_usd once its cost reaches it",
    "the ResultMessage is returned although query() raises ResultError after it",
]


async def limited_run(prompt, options, max_turns, max_budget_usd):
    limited = dataclasses.replace(options, max_turns=max_turns, max_budget_usd=max_budget_usd)
    result = None
    async for message in query(prompt=prompt, options=limited):  # the mistake: no try around it
        if isinstance(message, ResultMessage):
            result = message
    return result
