"""Structured answers: a value valid for a JSON schema, as a model constrained by the schema gives
one.

A request can fix the shape of the answer: a forced tool (tool_choice any or tool),
output_config.format (what the SDK's messages.parse sends), the Agent SDK's StructuredOutput tool.
The toy model answers in text; its answer is fitted to the schema field by field (a string field
gets the text, a number field the first number in it, a boolean yes or no, an enum the member the
text names), and a field the text cannot fill gets the smallest value its schema allows; an answer
that is already a valid value, as JSON, is taken as it is. The value is checked against the schema
(jsonschema, draft 2020-12) before it is sent.
"""
from __future__ import annotations

import json
import re

NUMBER = {"integer": re.compile(r"-?\d+"), "number": re.compile(r"-?\d+(?:\.\d+)?")}
BOOLEAN = {"yes": True, "true": True, "no": False, "false": False}
FORMATS = {"date": "1970-01-01", "date-time": "1970-01-01T00:00:00Z", "time": "00:00:00Z",
           "email": "a@example.com",
           "uri": "https://example.com", "uuid": "00000000-0000-0000-0000-000000000000"}


def answer_for(schema: dict, answer: str):
    """The answer fitted to `schema`, a field the text cannot fill given its smallest value; None
    only when no value this module can make is valid (a pattern it cannot meet, say)."""
    for value in (_as_json(answer), fitted(schema, answer, strict=False), minimal(schema, schema)):
        if value is not _NOTHING and valid(schema, value):
            return value
    return None


def _as_json(answer: str):
    """The answer as JSON when it is JSON (a toy model that answers with the value itself), else
    _NOTHING."""
    try:
        return json.loads(answer)
    except ValueError:
        return _NOTHING


def fitted(schema: dict, answer: str, strict: bool = True):
    """The answer as a value of an object schema: each required field (or else the first) filled
    from the text by its type. Strict: None when a field cannot be filled from the text; otherwise
    that field gets its smallest value."""
    properties = schema.get("properties") or {}
    value = {}
    for name in schema.get("required") or list(properties)[:1]:
        field = _resolved(properties.get(name) or {"type": "string"}, schema)
        filled = _from_text(field, answer, schema)
        if filled is _NOTHING:
            if strict:
                return None
            filled = minimal(field, schema)
        value[name] = filled
    return value


_NOTHING = object()


def _from_text(field: dict, answer: str, root: dict):
    """A field's value read from the text, or _NOTHING."""
    text = answer.strip()
    if "enum" in field:
        return next((v for v in field["enum"] if str(v).lower() in text.lower()), _NOTHING)
    kind = field.get("type", "string")
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "string":  # a date, an e-mail address...: not the answer's words
        return (
            text[: field.get("maxLength", len(text))]
            if text and field.get("format") not in FORMATS
            else _NOTHING
        )
    if kind in NUMBER and (found := NUMBER[kind].search(text)):
        number = found.group()
        return int(number) if kind == "integer" else float(number)
    if kind == "boolean":
        word = re.match(r"[a-z]+", text.lower())
        return BOOLEAN.get(word.group(), _NOTHING) if word else _NOTHING
    if kind == "object":
        return fitted(field, answer, strict=False) if field.get("properties") else _NOTHING
    return _NOTHING


def minimal(schema: dict, root: dict):
    """The smallest instance `schema` allows: required fields only, the fewest items, 0, "",
    false."""
    schema = _resolved(schema, root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return minimal(schema[key][0], root)
    if schema.get("allOf"):
        return minimal({k: v for part in schema["allOf"] for k, v in _resolved(part, root).items()},
                       root)
    kind = schema.get("type", "object" if "properties" in schema else None)
    kind = next((k for k in kind if k != "null"), "null") if isinstance(kind, list) else kind
    if kind == "object":
        properties = schema.get("properties") or {}
        names = list(schema.get("required") or [])
        names += [n for n in properties if n not in names][: max(
            0, schema.get("minProperties", 0) - len(names))]
        return {n: minimal(properties.get(n) or {}, root) for n in names}
    if kind == "array":
        prefix = [minimal(s, root) for s in schema.get("prefixItems") or []]
        more = max(0, schema.get("minItems", 0) - len(prefix))
        return prefix + [minimal(schema.get("items") or {}, root) for _ in range(more)]
    if kind == "string":
        return FORMATS.get(schema.get("format", ""), "x" * schema.get("minLength", 0))
    if kind in NUMBER:
        low = max(schema.get("minimum", 0), schema.get("exclusiveMinimum", -1) + 1)
        return min(low, schema.get("maximum", low), schema.get("exclusiveMaximum", low + 1) - 1)
    if kind == "boolean":
        return False
    return None


def _resolved(schema: dict, root: dict) -> dict:
    """A schema with a local $ref ("#/$defs/Name", what pydantic writes) replaced by what it points
    to."""
    while (
        isinstance(schema, dict)
        and isinstance(schema.get("$ref"), str)
        and schema["$ref"].startswith("#/")
    ):
        target = root
        for part in schema["$ref"][2:].split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        schema = {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema if isinstance(schema, dict) else {}


def valid(schema: dict, value) -> bool:
    import jsonschema  # imported on first use: it takes over a second to import

    try:
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        return jsonschema.Draft202012Validator(schema, format_checker=checker).is_valid(value)
    except (jsonschema.SchemaError, jsonschema.exceptions.RefResolutionError):
        return False
