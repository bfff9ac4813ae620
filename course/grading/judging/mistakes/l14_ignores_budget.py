"""Caps the turns and forgets the budget."""
import dataclasses

from claude_agent_sdk import ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import IGNORES_BUDGET as MISTAKE

GRADE_ID = "limited_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "max_budget_usd stops the run with subtype error_max_budget_usd once its cost reaches it",
]


async def limited_run(prompt, options, max_turns, max_budget_usd):
    limited = dataclasses.replace(options, max_turns=max_turns)  # the mistake: max_budget_usd left out
    result = None
    try:
        async for message in query(prompt=prompt, options=limited):
            if isinstance(message, ResultMessage):
                result = message
    except Exception:
        if result is None:
            raise
    return result
