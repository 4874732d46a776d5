"""Validate pods against the Kubernetes OpenAPI schema, offline.

The schemas come from the `kubernetes-validate` package (dev extra), which ships the upstream Kubernetes
OpenAPI definitions converted to JSON Schema for every minor version; we use its *strict* variant (unknown
fields rejected). Tests skip with a reason when the package is absent.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

# Native sidecars (init containers with restartPolicy: Always) are on by default from 1.29; 1.34 is current.
K8S_VERSIONS = ("1.29", "1.34")


def _schema_root() -> Path:
    try:
        import kubernetes_validate  # noqa: PLC0415
    except ImportError:
        pytest.skip("kubernetes-validate is not installed (pip install -e '.[dev]'); it ships the Kubernetes "
                    "OpenAPI schemas used to validate pod templates offline")
    return Path(kubernetes_validate.__file__).parent / "kubernetes-json-schema"


@functools.lru_cache(maxsize=None)
def _validator(version: str, file: str = "pod-v1.json"):
    import jsonschema  # noqa: PLC0415
    from referencing import Registry, Resource  # noqa: PLC0415

    folder = _schema_root() / f"v{version}.0-local-strict"
    schema = json.loads((folder / file).read_text())
    definitions = json.loads((folder / "_definitions.json").read_text())
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.Draft202012Validator(schema, registry=registry)


def pod_from_template(template: dict, name: str = "pod") -> dict:
    metadata = {"name": name, **template.get("metadata", {})}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": template["spec"]}


def pod_schema_errors(pod: dict) -> dict[str, list[str]]:
    out = {}
    for version in K8S_VERSIONS:
        errors = []
        for err in _validator(version).iter_errors(pod):
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
            errors.append(f"{where or '<root>'}: {err.message}")
        out[version] = sorted(errors)
    return out


def schema_file(obj: dict) -> str:
    """kubernetes-validate's file for an object: `<kind>-<group>-<version>.json` (core group: `<kind>-<version>`)."""
    group, _, version = obj["apiVersion"].rpartition("/")
    group = group.split(".")[0]
    return f"{obj['kind'].lower()}-{group + '-' if group else ''}{version}.json"


def object_schema_errors(obj: dict) -> dict[str, list[str]]:
    """Errors of any built-in object (Service, Deployment, Job, Role, ...) per Kubernetes version."""
    out = {}
    for version in K8S_VERSIONS:
        errors = []
        for err in _validator(version, schema_file(obj)).iter_errors(obj):
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
            errors.append(f"{where or '<root>'}: {err.message}")
        out[version] = sorted(errors)
    return out
