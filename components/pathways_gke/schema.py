"""The component schema snapshot (schema/pathways-gke.schema.json): print, write or check it.

    python -m pathways_gke.schema            # print the inferred schema
    python -m pathways_gke.schema --write    # update the committed snapshot (after an intended change)
    python -m pathways_gke.schema --check    # exit 1 with a diff when the snapshot is out of date

The schema is what `pulumi package get-schema ./provider` would print; it is inferred in process by the
SDK's analyzer (the code path the plugin host uses), so no Pulumi CLI is needed.
"""

import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from .generated import command

SNAPSHOT = Path("schema") / "pathways-gke.schema.json"


def render(schema: dict[str, Any]) -> str:
    return json.dumps(_without_null_descriptions(schema), indent=2, sort_keys=True) + "\n"


def _without_null_descriptions(value: Any) -> Any:
    """The analyzer writes `"description": null` for an enum value without a meaning; Pulumi's metaschema
    (pkg/codegen/schema/pulumi.json: an enum value's description is a string) refuses null: leave it out."""
    if isinstance(value, dict):
        return {k: _without_null_descriptions(v) for k, v in value.items() if not (k == "description" and v is None)}
    if isinstance(value, list):
        return [_without_null_descriptions(v) for v in value]
    return value


def current() -> str:
    from .provider import package_schema

    return render(package_schema())


def main(argv: Optional[Sequence[str]] = None) -> int:
    return command("pathways_gke.schema", __doc__.split("\n")[0], lambda: {SNAPSHOT: (current(),) * 2}, argv)


if __name__ == "__main__":
    sys.exit(main())
