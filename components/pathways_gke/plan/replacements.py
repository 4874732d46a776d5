"""Which input changes REPLACE a resource (delete + create) instead of updating it in place.

The offline plan has no provider `Diff`, so the apply-outcome model stands in for it with the providers' own
algorithms: pulumi-gcp is bridged from terraform-provider-google-beta, and the bridge replaces on a ForceNew
attribute that gets a new value or a ForceNew block whose element count changes (bridge_schema.py, its schemas
read from TFB v7.42.0); pulumi-kubernetes on its forceNew table (apply_rules.py). Paths use Pulumi's
property-path syntax (see property_paths.py); the engine matches replaceOnChanges / ignoreChanges with
`contains` (a pattern names its path and the paths below it, never an added ancestor). A credentialed
`pulumi preview --diff` (its `replaceReasons`) remains the source of truth; keep the tables in step with the
provider version pinned in pyproject.toml.

Besides this table a resource is replaced when:
- a changed path falls under its own `options.replaceOnChanges` (our JobSets use `["spec"]`:
  JobSet's `spec.replicatedJobs` is immutable server-side, https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/webhooks/jobset_webhook.go);
- a resource it lists in `options.replaceWith` is replaced (a JobSet lists its TPU slice pools);
- its provider is replaced (a new `pulumi:providers:kubernetes` replaces every object it manages).

Pure data: no Pulumi import.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .. import tokens
# The replace tables are the apply-outcome model's (apply_rules.py: one place, each rule with its source).
from ..apply_rules import (  # noqa: F401 (re-exported: the diff and the tests read them here)
    ANY_INPUT, K8S_PROVIDER_WITHOUT_IDENTIFIER, NODES_RECREATED, REPLACE_PATHS, replace_patterns)
from ..apply_rules import K8S_IDENTITY as _K8S_IDENTITY
from ..apply_rules import is_k8s_object as _is_k8s_object
from ..apply_rules import provider_deletes_first
from ..gke_rules import SERVER_FILLED_TPU_FIELDS, SERVER_FILLED_WORKLOAD_POLICY_FIELDS
from ..property_paths import value_at



# --- fixed physical names -------------------------------------------------------------------------------
# Resources whose cloud/cluster name is an input: Pulumi replaces create-before-delete by default, so a
# successor with the same name fails with 409 / AlreadyExists unless the resource is deleteBeforeReplace.
# Changing one of the identity inputs gives the successor another name (or scope), so it can coexist.
IDENTITY_INPUTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: ("name", "namePrefix", "project", "location", "cluster"),
    tokens.GKE_CLUSTER: ("name", "project", "location"),
    tokens.RESOURCE_POLICY: ("name", "project", "region"),
    tokens.FIREWALL: ("name", "project"),
    tokens.SERVICE_ACCOUNT: ("accountId", "project"),
    tokens.BUCKET: ("name",),  # bucket names are global: the location is no part of it
})
NAME_INPUT: Mapping[str, str] = MappingProxyType({
    tokens.NODE_POOL: "name", tokens.GKE_CLUSTER: "name", tokens.RESOURCE_POLICY: "name", tokens.FIREWALL: "name",
    tokens.SERVICE_ACCOUNT: "accountId", tokens.BUCKET: "name",
})

# Force-new node-pool fields GKE fills in on TPU slices (the rulebook's list; the pools ignore them).
SERVER_FILLED_NODE_POOL_FIELDS = (*SERVER_FILLED_TPU_FIELDS, *SERVER_FILLED_WORKLOAD_POLICY_FIELDS)


def is_k8s_object(resource: Mapping[str, Any]) -> bool:
    return _is_k8s_object(resource["type"], resource.get("inputs") or {})


def fixed_name(resource: Mapping[str, Any]) -> str | None:
    """The fixed physical name of a resource, or None (computed, auto-named, or a type without one)."""
    if is_k8s_object(resource):
        name = value_at(resource, "inputs.metadata.name")
    else:
        key = NAME_INPUT.get(resource["type"])
        name = value_at(resource, ("inputs", key)) if key else None
    return name if isinstance(name, str) and name and not name.startswith("<") else None


def identity_patterns(resource: Mapping[str, Any]) -> tuple[str, ...]:
    return _K8S_IDENTITY if is_k8s_object(resource) else IDENTITY_INPUTS.get(resource["type"], ())


def replaceable_keeping_name(resource: Mapping[str, Any]) -> bool:
    """Can a change replace this resource while its name stays the same?"""
    options = resource.get("options") or {}
    if options.get("replaceOnChanges") or options.get("replaceWith"):
        return True
    identity = set(identity_patterns(resource))
    return any(p not in identity for p in replace_patterns(resource["type"], resource.get("inputs") or {}))


def name_clash_on_replace(resource: Mapping[str, Any]) -> bool:
    """A fixed-name resource that a change can replace and that is not deleted first: the successor gets 409."""
    options = resource.get("options") or {}
    inputs = resource.get("inputs") or {}
    # pulumi-kubernetes replaces a Kubernetes object that keeps its name delete-first on its own
    # (apply_rules `k8s-named-delete-first`), and the Terraform bridge a resource whose autonamed field is given
    # explicitly (`bridge-delete-before-replace`): only a type with neither needs the option.
    return (resource.get("custom", True) and fixed_name(resource) is not None and not is_k8s_object(resource)
            and replaceable_keeping_name(resource) and not options.get("deleteBeforeReplace")
            and not provider_deletes_first(resource["type"], inputs, inputs))

