"""Check property values against a Pulumi package schema (what the engine and SDK codegen rely on).

Covers what our schema uses: object types by $ref, enums, arrays, string maps, the primitive types,
required properties and unknown properties. Numbers: `integer` accepts an int or an integral float
(the wire has only floats).
"""

from typing import Any


def schema_errors(schema: dict[str, Any], token: str, properties: dict[str, Any]) -> list[str]:
    resource = schema["resources"][token]
    spec = {"properties": resource.get("inputProperties", {}), "required": resource.get("requiredInputs", [])}
    return _object(schema, spec, properties, token)


def _object(schema: dict[str, Any], spec: dict[str, Any], value: Any, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: expected an object, got {type(value).__name__}"]
    errors = [f"{path}.{name}: required property missing" for name in spec.get("required", []) if name not in value]
    for name, item in value.items():
        prop = spec["properties"].get(name)
        if prop is None:
            errors.append(f"{path}.{name}: unknown property (known: {', '.join(sorted(spec['properties']))})")
            continue
        errors += _value(schema, prop, item, f"{path}.{name}")
    return errors


def _value(schema: dict[str, Any], prop: dict[str, Any], value: Any, path: str) -> list[str]:
    if "$ref" in prop:
        ref = prop["$ref"]
        if not ref.startswith("#/types/"):
            return []  # external / pulumi.json#/Any: not ours to check
        typ = schema["types"][ref[len("#/types/"):]]
        if "enum" in typ:
            allowed = [e["value"] for e in typ["enum"]]
            return [] if value in allowed else [f"{path}: {value!r} is not one of {allowed}"]
        return _object(schema, typ, value, path)
    kind = prop.get("type")
    if kind == "array":
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        return [e for i, v in enumerate(value) for e in _value(schema, prop["items"], v, f"{path}[{i}]")]
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: expected a map"]
        return [e for k, v in value.items() for e in _value(schema, prop["additionalProperties"], v, f"{path}.{k}")]
    checks = {
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer()),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    }
    if kind in checks and not checks[kind](value):
        return [f"{path}: expected {kind}, got {value!r}"]
    return []
