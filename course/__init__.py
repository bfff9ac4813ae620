"""Agent loops, from a toy model to the real Anthropic API.

The package the notebooks import: the local Messages API (`course.api`), the
client (`course.client`), the reference loop (`course.loop`), tools, the gate,
scenarios, views and grading.
"""

import sys

# jsonschema imports rfc3987_syntax, when installed, only to check the "iri" format, and
# building its grammar costs seconds at import; the course never checks formats.
# None blocks an import; typeshed omits it
sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
