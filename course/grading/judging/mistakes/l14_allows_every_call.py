"""Hands query() a can_use_tool that allows every call."""
import dataclasses

from claude_agent_sdk import PermissionResultAllow, ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import ALLOWED_ALL as MISTAKE

GRADE_ID = "gated_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call decide refuses is not run: the harness answers it with an is_error result carrying the message",
    "the ResultMessage that ends the run is returned",
]


async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
        return PermissionResultAllow()  # the mistake: deny is never read

    result = None
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        if isinstance(message, ResultMessage):
            result = message
    return result
