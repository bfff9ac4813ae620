"""Tools (Def. 2.2): a definition the model sees plus the code that runs it.

`Toolbox.run(name, input)` never raises: an unknown tool, an input that fails
the tool's JSON Schema, or an exception in the tool becomes an error result
(content, is_error=True) that the model can read and react to.
"""
from __future__ import annotations

import functools
import inspect
import json
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import jsonschema

from ..i18n import tr

PY_TO_JSON = {str: "string", int: "integer", float: "number", bool: "boolean", list: "array",
              dict: "object"}


@dataclass
class Tool:
    """name, description and input_schema go to the model; fn(**input) runs it."""

    name: str
    description: str
    input_schema: dict
    fn: Callable[..., Any]
    read_only: bool = False  # no effect on the environment: may run concurrently (Prop. 6.2)

    def definition(self) -> dict:
        return {"name": self.name, "description": self.description,
                "input_schema": self.input_schema}


def json_type(hint: Any) -> str:
    """The JSON Schema type of a type hint: list[str] -> array, int | None -> integer, no hint ->
    string."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    return PY_TO_JSON.get(typing.get_origin(hint) or hint, "string")


def tool(fn: Callable | None = None, *, name: str | None = None, read_only: bool = False):
    """Decorator: a Tool from a function; the schema comes from its type hints, the description from
    its docstring."""

    def build(f: Callable) -> Tool:
        hints = typing.get_type_hints(f)
        props, required = {}, []
        for pname, param in inspect.signature(f).parameters.items():
            props[pname] = {"type": json_type(hints.get(pname))}
            if param.default is inspect.Parameter.empty:
                required.append(pname)
        schema = {"type": "object", "properties": props, "required": required}
        doc = inspect.getdoc(f) or f.__name__
        return Tool(name or f.__name__, doc, schema, f, read_only)

    return build(fn) if fn is not None else build


def from_dict(definition: dict, fn: Callable[..., Any], *, read_only: bool = False) -> Tool:
    """A Tool from a plain API tool definition and the function that runs it."""
    return Tool(definition["name"], definition.get("description", ""), definition["input_schema"],
                fn, read_only)


@functools.lru_cache(maxsize=1024)
def validator(schema_json: str):
    """A checked validator for a schema, built once: checking the schema costs far more than
    validating an input."""
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def schema_problem(e: jsonschema.ValidationError) -> str:
    """jsonschema's sentence for an invalid input, in the course's language for the two a model
    meets most (a missing property, a wrong type)."""
    if e.validator == "required":
        # what "required" validates
        required, instance = cast(list, e.validator_value), cast(dict, e.instance)
        missing = next((p for p in required if p not in instance), None)
        return tr("{name} is a required property").format(name=repr(missing))
    if e.validator == "type":
        types = e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]
        return tr("{value} is not of type {type}").format(value=repr(e.instance),
                                                          type=", ".join(map(repr, types)))
    return e.message


@dataclass
class Toolbox:
    """The tools of one run, by name."""

    tools: dict[str, Tool] = field(default_factory=dict)

    def __init__(self, tools: list[Tool] | None = None):
        self.tools = {t.name: t for t in tools or []}

    def __contains__(self, name: str) -> bool:
        return name in self.tools

    def __getitem__(self, name: str) -> Tool:
        return self.tools[name]

    def add(self, t: Tool) -> Tool:
        self.tools[t.name] = t
        return t

    def definitions(self) -> list[dict]:
        return [t.definition() for t in self.tools.values()]

    def is_read_only(self, name: str) -> bool:
        return name in self.tools and self.tools[name].read_only

    def problem(self, name: str, input: Any) -> str | None:
        """Why this call cannot run (unknown tool, input against the schema), or None."""
        if name not in self.tools:
            return tr("Error: unknown tool {name}. Available tools: {names}.").format(
                name=repr(name), names=", ".join(self.tools) or tr("none"))
        e = jsonschema.exceptions.best_match(
            validator(json.dumps(self.tools[name].input_schema)).iter_errors(input))
        if e is not None:  # the error jsonschema.validate would raise
            where = "/".join(str(p) for p in e.absolute_path) or tr("input")
            return tr("Error: invalid input for {name}: {where}: {problem}").format(
                name=name, where=where, problem=schema_problem(e))
        return None

    def run(self, name: str, input: Any) -> tuple[str, bool]:
        """(content, is_error) for one call; never raises."""
        problem = self.problem(name, input)
        if problem:
            return problem, True
        try:
            out = self.tools[name].fn(**input)
        except Exception as e:  # the model sees the failure and can try something else
            return tr("Error: {kind}: {error}").format(kind=type(e).__name__, error=e), True
        return (out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)), False
