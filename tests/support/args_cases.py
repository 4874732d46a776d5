"""Stack-file configs re-expressed the two other ways a PathwaysCluster receives them.

- `wire_inputs`: what a TypeScript/Go/YAML program sends through the engine: camelCase schema names,
  every number a float, a string command as an argument list.
- `python_args`: what a Python platform program writes: snake_case PathwaysClusterArgs, Enum members,
  and (to prove coercion) integral floats where ints belong.
"""

import shlex
from enum import Enum
from typing import Any, get_args, get_origin, is_typeddict

from pathways_gke import args as A

PREFIX = "pathways-gke:"


def wire_inputs(config: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key == "gcp:project":
            out["project"] = value
        elif key.startswith(PREFIX):
            out[key[len(PREFIX):]] = _wire(value, key[len(PREFIX):])
    return out


def _wire(value: Any, key: str) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if key == "command" and isinstance(value, str):
        return shlex.split(value)
    if isinstance(value, dict):
        return {k: _wire(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v, key) for v in value]
    return value


def python_args(config: dict[str, Any]) -> dict[str, Any]:
    wire = wire_inputs(config)
    return _python(wire, A.PathwaysClusterArgs)


def _python(value: Any, annotation: Any) -> Any:
    if is_typeddict(annotation):
        hints = A.field_types(annotation)
        by_wire = {A.camel(name): name for name in hints}
        return {by_wire[k]: _python(v, hints[by_wire[k]]) for k, v in value.items()}
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return annotation(value)
    origin, params = get_origin(annotation), get_args(annotation)
    if origin is list:
        return [_python(v, params[0]) for v in value]
    if origin is dict:
        return {k: _python(v, params[1]) for k, v in value.items()}
    return value
