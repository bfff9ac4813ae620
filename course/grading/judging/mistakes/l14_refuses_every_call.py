"""Refuses every call its can_use_tool is asked about."""
import dataclasses

from claude_agent_sdk import PermissionResultDeny, ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import REFUSED_ALL as MISTAKE

GRADE_ID = "gated_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "a call decide refuses is not run: the harness answers it with an is_error result carrying the message",
    "a call decide allows runs, and its result goes back to the model",
]


async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
        return PermissionResultDeny(message=f"Permission denied by rule {tool_name}")  # the mistake: deny never read

    result = None
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        if isinstance(message, ResultMessage):
            result = message
    return result
