"""Refuses every call its can_use_tool is asked about."""
import dataclasses

from claude_agent_sdk import PermissionResultDeny, ResultMessage, query

from course.grading.judging.checks.l14_the_agent_sdk import REFUSED_ALL as MISTAKE

GRADE_ID = "gated_run"


async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
        return PermissionResultDeny(message=f"Permission denied by rule {tool_name}")  # the mistake: deny never read

    result = None
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        if isinstance(message, ResultMessage):
            result = message
    return result
