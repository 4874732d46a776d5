"""The committed schema is valid against Pulumi's metaschema as written (not only after a loader drops nulls).

pulumi/pulumi pkg/codegen/schema/pulumi.json, `enumTypeSpec`: an enum value is an object whose `name` and
`description` are strings (`"description": null` is invalid); every `description` in the metaschema is a string.
"""

import json

from tests.conftest import ROOT

SCHEMA = json.loads((ROOT / "schema" / "pathways-gke.schema.json").read_text())


def walk(value, path="$"):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from walk(item, f"{path}.{key}")
            yield path, key, item
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from walk(item, f"{path}[{index}]")


def test_no_description_is_null():
    nulls = [f"{path}.{key}" for path, key, item in walk(SCHEMA) if key == "description" and not isinstance(item, str)]
    assert nulls == []


def test_every_enum_value_has_the_metaschema_shape():
    enums = {token: spec for token, spec in SCHEMA["types"].items() if "enum" in spec}
    assert enums
    for token, spec in enums.items():
        assert spec["type"] in ("boolean", "integer", "number", "string"), token
        for value in spec["enum"]:
            assert set(value) <= {"name", "description", "value", "deprecationMessage"}, (token, value)
            assert "value" in value and all(isinstance(value[k], str) for k in ("name", "description") if k in value)
