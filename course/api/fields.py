"""Every field of a request checked against the installed SDK's types, as the real API's schema
checks it.

The SDK declares each request field as a TypedDict, a union of them told apart by `type` (or
`role`), a Literal, a list or a plain type. `check(value, annotation, where)` walks a request along
those declarations and raises a 400 for the first value that does not fit, named by its path the way
the real API names it (`messages.1.content.0.tool_result.cache_control.ttl: Input should be '5m' or
'1h'`): a field missing, a field the type does not declare (`Extra inputs are not permitted`), a
value of the wrong kind, a tag no member of a union has.
"""
from __future__ import annotations

import collections.abc
import functools
import typing

import pydantic

from .errors import APIError

DISCRIMINATORS = ("type", "role")  # the keys the SDK's unions of TypedDicts are told apart by
KINDS = {str: "a valid string", int: "a valid integer", float: "a valid number",
         bool: "a valid boolean", type(None): "null"}
# what typing.get_origin gives for a list
LISTS = {list, collections.abc.Iterable, collections.abc.Sequence}


def invalid(message: str) -> APIError:
    """The API's 400 for a request it will not take."""
    return APIError(400, "invalid_request_error", message)


def _at(where: str, message: str) -> APIError:
    """The 400 for the value at `where` (a path such as messages.0.content.1)."""
    return invalid(f"{where}: {message}" if where else message)


def by_identity(fn):
    """`fn` of one argument remembered by the argument's identity: the SDK's typing objects are made
    once, and a Union's hash is worked out anew each time it is asked for (the set of its
    members)."""
    memo: dict[int, tuple[object, object]] = {}

    def remembered(arg):
        kept = memo.get(id(arg))
        if kept is None or kept[0] is not arg:
            # the argument kept: its id is never another object's
            kept = memo[id(arg)] = (arg, fn(arg))
        return kept[1]

    return functools.wraps(fn)(remembered)


def _strip(annotation):
    """The annotation without Required, NotRequired and Annotated around it."""
    while True:
        origin = typing.get_origin(annotation)
        if origin in (typing.Annotated, typing.Required, typing.NotRequired):
            annotation = typing.get_args(annotation)[0]
        else:
            return annotation


@functools.cache
def fields(typed_dict) -> dict[str, tuple[object, bool]]:
    """A TypedDict's fields (or a response model's, which the SDK also takes as a param): name ->
    (annotation, required)."""
    if issubclass(typed_dict, pydantic.BaseModel):
        return {f.alias or name: (_strip(f.annotation), f.is_required()) for name,
                f in typed_dict.model_fields.items()}
    hints = typing.get_type_hints(typed_dict, include_extras=True)
    return {name: (_strip(a),
                   typing.get_origin(a) is typing.Required or name in typed_dict.__required_keys__)
            for name, a in hints.items()}


def _is_typed_dict(annotation) -> bool:
    """A TypedDict, or a pydantic model of the SDK's (a response block sent back as it came)."""
    return isinstance(annotation, type) and (issubclass(annotation, pydantic.BaseModel) or (
        issubclass(annotation, dict) and hasattr(annotation, "__annotations__")))


@by_identity
def _members(union) -> tuple:
    """A union's members, nested unions and Optional flattened."""
    out: list = []
    for arg in typing.get_args(union):
        arg = _strip(arg)
        out.extend(_members(arg) if typing.get_origin(arg) is typing.Union else [arg])
    return tuple(out)


def _tags(typed_dict, key: str) -> tuple | None:
    """The Literal values a TypedDict allows for `key` (None when `key` is not a Literal of it), and
    None first when the key may be left out or null."""
    if key not in fields(typed_dict):
        return None
    annotation, required = fields(typed_dict)[key]
    options = (
        _members(annotation) if typing.get_origin(annotation) is typing.Union else (annotation,)
    )
    tags = [None] if not required or type(None) in options else []
    for option in options:
        if typing.get_origin(option) is typing.Literal:
            tags.extend(typing.get_args(option))
        elif option is not type(None):
            return None
    return tuple(tags)


@by_identity
def _tagged(union) -> tuple[str, dict] | None:
    """(key, tag -> TypedDict) for a union of two or more TypedDicts told apart by `type` or `role`;
    None for other unions."""
    members = [m for m in _members(union) if m is not type(None)]
    if len(members) < 2 or not all(_is_typed_dict(m) for m in members):
        # a lone TypedDict (Optional[X]) is checked as itself, its `type` as any Literal field
        return None
    for key in DISCRIMINATORS:
        tags = [_tags(m, key) for m in members]
        if all(t is not None for t in tags):
            table: dict = {}
            for member, member_tags in zip(members, tags, strict=True):
                for tag in member_tags or ():  # none is None (checked above)
                    table.setdefault(tag, member)
            return key, table
    return None


def _literal(values: tuple) -> str:
    shown = [repr(v) for v in values]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


@by_identity
def _shape(annotation) -> tuple[str, object]:
    """What `check` does with a value of `annotation`, worked out once per annotation (the SDK's
    typing objects): (how, with what)."""
    annotation = _strip(annotation)
    origin = typing.get_origin(annotation)
    if annotation in (object, typing.Any):
        return "any", None
    if origin is typing.Union:
        return "union", annotation
    if origin is typing.Literal:
        return "literal", typing.get_args(annotation)
    if _is_typed_dict(annotation):
        return "typed_dict", annotation
    if origin in LISTS or getattr(annotation, "__name__", "") == "SequenceNotStr":
        return "list", typing.get_args(annotation) or (object,)
    if origin in (dict, collections.abc.Mapping) or annotation is dict:
        return "dict", (typing.get_args(annotation) or (str, object))[1]
    if annotation in KINDS:
        return "kind", annotation
    return "other", None


def check(value, annotation, where: str = "") -> None:
    """Raise a 400 naming the first place in `value` that the SDK's `annotation` does not allow."""
    how, what = _shape(annotation)
    if how == "any":
        return
    if how == "union":
        return _check_union(value, what, where)
    if how == "literal":
        if not any(value == v and type(value) is type(v) for v in what):
            raise _at(where, f"Input should be {_literal(what)}")
        return
    if how == "typed_dict":
        return _check_typed_dict(value, what, where)
    if how == "list":
        if not isinstance(value, list):
            raise _at(where, "Input should be a valid list")
        (item,) = what
        for i, v in enumerate(value):
            check(v, item, f"{where}.{i}" if where else str(i))
        return
    if how == "dict":
        if not isinstance(value, dict):
            raise _at(where, "Input should be a valid dictionary")
        for k, v in value.items():
            check(v, what, f"{where}.{k}")
        return
    if how == "kind":
        if what is float and isinstance(value, int) and not isinstance(value, bool):
            return
        if not isinstance(value, what) or (what is int and isinstance(value, bool)):
            raise _at(where, f"Input should be {KINDS[what]}")
        return
    # IO, PathLike: what a client uploads
    raise _at(where, "Input is not a value JSON can carry here")


def _check_typed_dict(value, typed_dict, where: str) -> None:
    if not isinstance(value, dict):
        raise _at(where, "Input should be a valid dictionary")
    declared = fields(typed_dict)
    for name, (annotation, required) in declared.items():
        if name not in value or (value[name] is None and not required):
            # an optional field sent as null counts as left out: the SDK's model_dump() of a
            # response block sends back `"caller": null` and the like
            if required:
                raise _at(f"{where}.{name}" if where else name, "Field required")
            continue
        check(value[name], annotation, f"{where}.{name}" if where else name)
    extra = next((k for k in value if k not in declared), None)
    if extra is not None:
        raise _at(f"{where}.{extra}" if where else str(extra), "Extra inputs are not permitted")


def _check_union(value, union, where: str) -> None:
    members = _members(union)
    if value is None:
        if type(None) in members:
            return
        raise _at(where, "Input should not be null")
    tagged = _tagged(union)
    if tagged is not None:
        key, table = tagged
        if not isinstance(value, dict):
            raise _at(where, "Input should be a valid dictionary")
        tag = value.get(key)
        if tag is None and None not in table:
            raise _at(where, f"Unable to extract tag using discriminator '{key}'")
        if key == "role" and not (isinstance(tag, str) and tag in table):
            # the wording lesson 01 shows (a system message is accepted too)
            raise _at(f"{where}.role", "Input should be 'user' or 'assistant'")
        if not isinstance(tag, (str, type(None))) or tag not in table:
            expected = ", ".join(repr(t) for t in table if t is not None)
            raise _at(where, f"Input tag {tag!r} found using '{key}' does not match any of the "
                             "expected tags: "
                                 f"{expected}")
        member = table[tag]
        named = next(t for t in _tags(member, key) or () if t is not None)
  # a tool without a type is a custom tool
        return check(value, member, f"{where}.{named}" if key == "type" else where)
    errors = []
    # the first member the value fits; else the error of a member of the value's kind
    for member in members:
        try:
            return check(value, member, where)
        except APIError as e:
            errors.append((member, e))
    raise next((e for member, e in errors if _same_kind(value, member)), errors[0][1])


def _same_kind(value, member) -> bool:
    """Whether `member` is the kind of thing `value` is (a dict for a TypedDict, a list for a
    list...), so that its error says more than the others'."""
    origin = typing.get_origin(member)
    if isinstance(value, dict):
        return _is_typed_dict(member) or origin in (dict, collections.abc.Mapping)
    if isinstance(value, list):
        return typing.get_origin(member) in LISTS
    return False
