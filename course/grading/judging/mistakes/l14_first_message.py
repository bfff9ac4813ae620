"""Gates the run as asked, but returns the first message query() yields."""
import dataclasses

from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny, query

from course.grading.judging.mistakes.l14_last_rule import rule_matches
from course.i18n import deferred

MISTAKE = deferred("returning the first message query() yields: the run ends with its ResultMessage, return that "
                   "one")
GRADE_ID = "gated_run"
FAILS = [  # the rules it fails: the sentences of the text it breaks, and no other
    "the ResultMessage that ends the run is returned",
]


def decide(tool_name, tool_input, deny):
    for rule in deny:
        if rule_matches(rule, tool_name, tool_input):
            return PermissionResultDeny(message=f"Permission denied by rule {rule}")
    return PermissionResultAllow()


async def gated_run(prompt, options, deny):
    async def can_use_tool(tool_name, tool_input, context):
        return decide(tool_name, tool_input, deny)

    messages = []
    async for message in query(prompt=prompt, options=dataclasses.replace(options, can_use_tool=can_use_tool)):
        messages.append(message)
    return messages[0]  # the mistake: the run ends with its ResultMessage
