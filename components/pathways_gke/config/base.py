"""Shared pydantic settings and the translation of pydantic errors into Problems."""

from __future__ import annotations

from dataclasses import replace
from types import UnionType
from typing import Annotated, Any, ClassVar, Iterable, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Tag, ValidationError, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from ..errors import ConfigError, Problem, allowed, did_you_mean, join_path


class Model(BaseModel):
    """Stack-config model: camelCase keys, unknown keys rejected, immutable once built."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
        use_attribute_docstrings=True,  # the docstring under a field is its description: the schema's, the docs'
    )
    refused_keys: ClassVar[dict[str, str]] = {}
    """Keys a sibling kind reads (camelCase) -> why this kind refuses them; reported instead of "unknown key"."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_for_int(cls, value: Any, info: ValidationInfo) -> Any:
        """Every int field is strict about booleans: pydantic's lax mode reads `true` as 1 (`maxNodes: true`)."""
        if isinstance(value, bool) and info.field_name is not None:
            field = cls.model_fields.get(info.field_name)
            if field is not None and _takes_int_not_bool(field.annotation):
                raise PydanticCustomError("int_type", "is invalid: should be an integer, not a boolean")
        return value


def _leaf_types(annotation: Any) -> set[Any]:
    if get_origin(annotation) is Annotated:
        return _leaf_types(get_args(annotation)[0])
    args = get_args(annotation)
    if args and get_origin(annotation) in (Union, UnionType):
        return set().union(*(_leaf_types(a) for a in args))
    return {annotation}


def _takes_int_not_bool(annotation: Any) -> bool:
    leaves = _leaf_types(annotation)
    return int in leaves and bool not in leaves


def fail(kind: str, message: str, **context: Any) -> PydanticCustomError:
    """A custom error whose text already says what is allowed.

    pydantic replaces only `{key}` for the keys of `context` and never unescapes `{{`: the message goes as it is
    (escaping it printed doubled braces).
    """
    return PydanticCustomError(kind, message, context)


def _field_names(model: type[BaseModel] | None) -> list[str]:
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_at(root: Any, loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """Walk the model tree along an error location to the model owning its last key.

    `loc` still holds the union tags: a tag picks the member of a tagged union (a workload's runtime)."""
    current: Any = root
    for part in loc[:-1]:
        if isinstance(part, int):
            continue
        if _is_union_tag(part):
            current = _tagged_member(current, part) or current
            continue
        model = _inner_model(current)
        field = {f.alias or n: f for n, f in model.model_fields.items()}.get(part) if model else None
        if field is None:
            return None
        current = field.annotation
    return _inner_model(current)


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds (through Optional, list, dict and Annotated); the first one of a union."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _tagged_member(annotation: Any, tag: str) -> Any:
    """The member of a tagged union (`Annotated[Model, Tag(tag)]`) that `tag` names, or None."""
    for arg in get_args(annotation):
        if get_origin(arg) is Annotated and any(isinstance(m, Tag) and m.tag == tag for m in arg.__metadata__):
            return get_args(arg)[0]
        found = _tagged_member(arg, tag)
        if found is not None:
            return found
    return None


def problems_from(error: ValidationError, root: type[BaseModel], prefix: Iterable[str | int]) -> list[Problem]:
    """Turn a pydantic ValidationError into Problems with full config paths."""
    problems: list[Problem] = []
    prefix = tuple(prefix)
    for item in _without_other_union_branches(error.errors(include_url=False)):
        raw_loc = tuple(item["loc"])
        loc = tuple(part for part in raw_loc if not _is_union_tag(part))
        extra_field = (item.get("ctx") or {}).get("field")
        path = join_path(*prefix, *loc, *([extra_field] if extra_field else []))
        kind = item["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            model = _model_at(root, raw_loc)
            reason = getattr(model, "refused_keys", {}).get(key)
            if reason is not None:  # a key of a sibling kind (a pathways key on a jax workload): say why
                message, given = f"is not read by {_kind_of(model)}: {reason}", item.get("input")
                # the value is quoted when it is one value (a whole block would drown the reason)
                problems.append(Problem(path, message, given) if isinstance(given, (str, int, float, bool))
                                else Problem(path, message))
                continue
            known = _field_names(model)
            problems.append(Problem(path, f"unknown key; {did_you_mean(key, known)}{allowed(known)}"))
        elif kind == "missing":
            problems.append(Problem(path, "is required but missing"))
        elif kind in ("model_type", "model_attributes_type", "dict_type"):
            problems.append(Problem(path, "must be a mapping of keys to values", item.get("input")))
        elif kind == "union_tag":  # a tagged union's discriminator (a workload's runtime) has no member
            given = item.get("input")
            problems.append(Problem(path, item["msg"], given.get(extra_field) if isinstance(given, dict) else given))
        elif extra_field:  # raised for a sibling field; the message already quotes the value
            problems.append(Problem(path, item["msg"]))
        elif kind == "value_error" and isinstance((item.get("ctx") or {}).get("error"), ConfigError):
            # a validator that reports several problems at once (StackConfig's checks across sections) raises
            # ConfigError, a ValueError pydantic wraps: its problems go on as they are, under the error's path
            at = join_path(*prefix, *loc)
            problems.extend(replace(p, path=f"{at}.{p.path}" if at else p.path) for p in item["ctx"]["error"].problems)
        elif kind == "value_error" and "ctx" in item and isinstance(item["ctx"].get("error"), Exception):
            problems.append(Problem(path, str(item["ctx"]["error"]), item.get("input")))
        else:
            message = item["msg"]
            given = item.get("input")
            if message.startswith("Input should be "):
                message = "is invalid: should be " + message[len("Input should be "):]
            elif isinstance(given, (dict, list)) and not kind.endswith(("_type", "_parsing")):
                # our check of a whole mapping or list quotes the bad entry itself: the block is not repeated
                problems.append(Problem(path, message))
                continue
            problems.append(Problem(path, message, given))
    return problems


def _kind_of(model: Any) -> str:
    """How a tagged member names itself in messages: `runtime 'jax'` (from its one-value Literal discriminator)."""
    runtime = getattr(model, "model_fields", {}).get("runtime")
    values = get_args(runtime.annotation) if runtime is not None else ()
    return f"runtime '{values[0]}'" if len(values) == 1 else "this kind"


def _is_union_tag(part: Any) -> bool:
    """A union member's name in an error location, never a config key."""
    return _is_member_tag(part) or _is_discriminator_tag(part)


def _is_member_tag(part: Any) -> bool:
    # pydantic inserts the member name of a plain union ("str", "constrained-str", "list[str]", "function-after[...]")
    return isinstance(part, str) and ("[" in part or part.startswith("constrained-")
                                      or part in ("str", "int", "float", "bool", "list", "dict"))


def _is_discriminator_tag(part: Any) -> bool:
    # our tagged unions name their members `<discriminator>=<value>` (a workload's `runtime=jax`)
    return isinstance(part, str) and "=" in part


def _without_other_union_branches(errors: list[Any]) -> list[Any]:
    """Drop "is not a <type>" errors of union members the value was clearly not meant for.

    `reservation: {name: Bad}` fails the string member (not a string) and the mapping member (bad name);
    only the second says something. When some member got past the type check, the members that failed on
    the type alone are noise. When all failed on the type (`command: 5`), every member is reported.
    """
    def tag_at(item: Any) -> int | None:
        return next((i for i, part in enumerate(item["loc"]) if _is_member_tag(part)), None)

    def type_only(item: Any, at: int) -> bool:
        return len(item["loc"]) == at + 1 and item["type"].endswith("_type")

    members: dict[tuple[Any, ...], dict[str, bool]] = {}  # union location -> member -> failed on type only
    for item in errors:
        at = tag_at(item)
        if at is not None:
            union, member = tuple(item["loc"][:at]), item["loc"][at]
            previous = members.setdefault(union, {}).get(member, True)
            members[union][member] = previous and type_only(item, at)

    def noise(item: Any) -> bool:
        at = tag_at(item)
        if at is None:
            return False
        union = members[tuple(item["loc"][:at])]
        return union[item["loc"][at]] and not all(union.values())

    return [item for item in errors if not noise(item)]
