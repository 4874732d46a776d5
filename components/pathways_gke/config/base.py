"""Shared pydantic settings and the translation of pydantic errors into Problems."""

from __future__ import annotations

from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from ..errors import Problem, allowed, did_you_mean, join_path


class Model(BaseModel):
    """Stack-config model: camelCase keys, unknown keys rejected, immutable once built."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        frozen=True,
        str_strip_whitespace=True,
    )


def fail(kind: str, message: str, **context: Any) -> PydanticCustomError:
    """A custom error whose text already says what is allowed.

    Braces in the message are escaped so user values are never treated as template fields.
    """
    return PydanticCustomError(kind, message.replace("{", "{{").replace("}", "}}"), context)


def _field_names(model: type[BaseModel] | None) -> list[str]:
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_at(root: type[BaseModel], loc: tuple[Any, ...]) -> type[BaseModel] | None:
    """Walk the model tree along an error location to find the model owning the last key."""
    model: Any = root
    for part in loc[:-1]:
        if isinstance(part, int) or model is None:
            continue
        fields = {f.alias or n: f for n, f in model.model_fields.items()}
        field = fields.get(part)
        if field is None:
            return None
        model = _inner_model(field.annotation)
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or ():
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def problems_from(error: ValidationError, root: type[BaseModel], prefix: Iterable[str | int]) -> list[Problem]:
    """Turn a pydantic ValidationError into Problems with full config paths."""
    problems: list[Problem] = []
    prefix = tuple(prefix)
    for item in error.errors(include_url=False):
        loc = tuple(part for part in item["loc"] if not _is_union_tag(part))
        extra_field = (item.get("ctx") or {}).get("field")
        path = join_path(*prefix, *loc, *([extra_field] if extra_field else []))
        kind = item["type"]
        if kind == "extra_forbidden":
            key = str(loc[-1]) if loc else "?"
            known = _field_names(_model_at(root, loc))
            problems.append(Problem(path, f"unknown key; {did_you_mean(key, known)}{allowed(known)}"))
        elif kind == "missing":
            problems.append(Problem(path, "is required but missing"))
        elif kind in ("model_type", "model_attributes_type", "dict_type"):
            problems.append(Problem(path, "must be a mapping of keys to values", item.get("input")))
        elif extra_field:  # raised for a sibling field; the message already quotes the value
            problems.append(Problem(path, item["msg"]))
        elif kind == "value_error" and "ctx" in item and isinstance(item["ctx"].get("error"), Exception):
            problems.append(Problem(path, str(item["ctx"]["error"]), item.get("input")))
        else:
            message = item["msg"]
            if message.startswith("Input should be "):
                message = "is invalid: should be " + message[len("Input should be "):]
            problems.append(Problem(path, message, item.get("input")))
    return problems


def _is_union_tag(part: Any) -> bool:
    # pydantic inserts the union member name ("str", "list[str]", "function-after[...]") into locs
    return isinstance(part, str) and ("[" in part or part in ("str", "int", "float", "bool", "list", "dict"))
