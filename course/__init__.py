"""Agent loops, from a toy model to the real Anthropic API.

The package the notebooks import: the local Messages API (`course.api`), the
client (`course.client`), the reference loop (`course.loop`), tools, the gate,
scenarios, views and grading.
"""
