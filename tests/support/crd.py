"""Validate rendered objects against the upstream CRD schemas of kubernetes-sigs/jobset, kueue and lws (their
release manifests, loaded from ../shared/reference; the tests that need them skip when it is absent).

The CRD's openAPIV3Schema is a structural schema: the API server prunes unknown fields
silently, which would hide our typos. We validate strictly instead: every object schema
that lists properties and does not preserve unknown fields rejects extra keys.
"""

from __future__ import annotations

import copy
import functools
import os
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("PATHWAYS_GKE_SHARED", ROOT.parent / "shared"))
REFERENCE = SHARED / "reference"
JOBSET_CRD_VERSIONS = ("v0.8.2", "v0.12.0")
KUEUE_CRD_VERSIONS = ("v0.17.1", "v0.19.2")
# v0.4.0: what Google's multihost-inference page installs; v0.10.0: the default pin
LWS_CRD_VERSIONS = ("v0.4.0", "v0.10.0")


def require_shared() -> Path:
    if not REFERENCE.is_dir():
        pytest.skip(f"shared reference data not found at {REFERENCE} (CI checks it out beside the repo; "
                    "set PATHWAYS_GKE_SHARED to point elsewhere)")
    return REFERENCE


def _go_pattern(pattern: str) -> str:
    """Go's RE2 accepts inline flags after `^` (Kueue: `^(?i)[a-z]...`); Python wants them first."""
    if pattern.startswith("^(?i)"):
        return "(?i)^" + pattern[len("^(?i)"):]
    return pattern


def _strict(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        if isinstance(out.get("pattern"), str):
            out["pattern"] = _go_pattern(out["pattern"])
        if (out.get("type") == "object" and "properties" in out and "additionalProperties" not in out
                and not out.get("x-kubernetes-preserve-unknown-fields")):
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


@functools.lru_cache(maxsize=None)
def crd_validator(path: str, api_version: str) -> jsonschema.Draft7Validator:
    # libyaml's loader when PyYAML has it: the upstream CRD files are megabytes of YAML (pure Python takes seconds)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    docs = [d for d in yaml.load_all(Path(path).read_text(), Loader=loader) if d]
    crd = next(d for d in docs if d.get("kind") == "CustomResourceDefinition")
    version = api_version.split("/")[-1]
    for entry in crd["spec"]["versions"]:
        if entry["name"] == version:
            schema = _strict(copy.deepcopy(entry["schema"]["openAPIV3Schema"]))
            return jsonschema.Draft7Validator(schema)
    raise KeyError(f"{path} has no version {version}")


def jobset_crd(version: str) -> Path:
    return require_shared() / "jobset" / version / "jobset-crd.yaml"


def kueue_crd(version: str, kind: str) -> Path:
    plural = {"ResourceFlavor": "resourceflavors", "ClusterQueue": "clusterqueues", "LocalQueue": "localqueues",
              "AdmissionCheck": "admissionchecks", "ProvisioningRequestConfig": "provisioningrequestconfigs"}[kind]
    return require_shared() / "kueue" / version / f"kueue.x-k8s.io_{plural}.yaml"


def schema_errors(obj: dict, crd_path: Path) -> list[str]:
    """Human-readable schema errors ('spec.replicatedJobs[0]...: message'); empty when valid."""
    validator = crd_validator(str(crd_path), obj["apiVersion"])
    errors = []
    for err in sorted(validator.iter_errors(obj), key=lambda e: list(map(str, e.absolute_path))):
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path).lstrip(".")
        errors.append(f"{where or '<root>'}: {err.message}")
    return errors


def jobset_schema_errors(obj: dict) -> dict[str, list[str]]:
    """Errors per JobSet CRD version in shared/ (both must be empty for a valid JobSet)."""
    return {v: schema_errors(obj, jobset_crd(v)) for v in JOBSET_CRD_VERSIONS}


def kueue_schema_errors(obj: dict) -> dict[str, list[str]]:
    return {v: schema_errors(obj, kueue_crd(v, obj["kind"])) for v in KUEUE_CRD_VERSIONS}


def lws_crd(version: str) -> Path:
    return require_shared() / "lws" / version / "leaderworkerset.x-k8s.io_leaderworkersets.yaml"


def lws_schema_errors(obj: dict) -> dict[str, list[str]]:
    """Errors per stored LeaderWorkerSet CRD version (v0.4.0 and v0.10.0)."""
    return {v: schema_errors(obj, lws_crd(v)) for v in LWS_CRD_VERSIONS}
