"""Where the JobSet, Kueue and LeaderWorkerSet controllers come from, and the patches applied to their manifests.

Pure data and functions (no Pulumi import). The component installs each controller with a
`kubernetes:yaml/v2:ConfigFile` whose `file` is either the pinned upstream release URL or a local
manifest the user reviewed/vendored (air-gapped installs); the transform functions below are what
the component registers on that ConfigFile, kept here so tests can call them directly (transforms
do not run under the mock engine).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..naming import NODE_POOL_LABEL
from ..property_paths import value_at
from ..releases import RELEASES
from ..tokens import CRD, DEPLOYMENT, kubernetes_type


@dataclass(frozen=True)
class InstallSource:
    """What the ConfigFile of one controller installs, and from where."""

    addon: str
    version: str
    file: str  # release URL or local manifest path, exactly as the ConfigFile receives it
    origin: str  # "release" (pinned upstream URL) | "manifest" (local file)
    legacy_prefix: str  # the fixed prefix (the add-on name) earlier versions gave every child; aliased

    @property
    def describe(self) -> str:
        return f"{self.addon} {self.version} from {self.file}"


def install_source(addon: str, version: str, manifest: Optional[str]) -> InstallSource:
    release = RELEASES[addon]
    if manifest is not None:
        return InstallSource(addon, version, manifest, "manifest", addon)
    return InstallSource(addon, version, release.url.format(version=version), "release", addon)


# --- child names of a yaml/v2 install -----------------------------------------------------------
#
# pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go names each object of a ConfigFile
# `<resourcePrefix>:<namespace>/<name>` (`<resourcePrefix>:<name>` when cluster-scoped), typed
# `kubernetes:<group>/<version>:<Kind>` and parented to the ConfigFile. URNs carry the parents' *types*, not
# their names, so two installs under two components of one type would collide unless the prefix differs:
# configfile.go's default prefix is the ConfigFile's own name "to ensure uniqueness across multiple
# instances of the component resource". We pass that name explicitly so the plan shows it.


def install_resource_name(component: str, addon: str) -> str:
    """Name of the ConfigFile installing `addon` under the component named `component`."""
    return f"{component}-{addon}"


def resource_prefix(install_name: str) -> str:
    """The resourcePrefix of an install: its ConfigFile's name (unique per component instance, no version)."""
    return install_name


# kinds yaml/v2 puts into the provider's default namespace when the manifest gives none
NAMESPACED_KINDS = frozenset({
    "ConfigMap", "Secret", "Service", "ServiceAccount", "Deployment", "StatefulSet", "DaemonSet", "Job",
    "Role", "RoleBinding", "Pod", "PodDisruptionBudget", "NetworkPolicy", "Lease",
})


def manifest_objects(documents: list[Any]) -> list[dict[str, Any]]:
    """The objects yaml/v2 registers from parsed YAML documents (`kind: *List` expanded, empty skipped)."""
    out: list[dict[str, Any]] = []
    for doc in documents:
        if not isinstance(doc, Mapping):
            continue
        if str(doc.get("kind", "")).endswith("List") and isinstance(doc.get("items"), list):
            out.extend(manifest_objects(doc["items"]))
        else:
            out.append(dict(doc))
    return out


def child_resource(obj: Mapping[str, Any], prefix: str, default_namespace: str = "default") -> tuple[str, str]:
    """(type token, resource name) yaml/v2 gives one manifest object."""
    metadata = obj.get("metadata") or {}
    name, namespace = str(metadata.get("name", "")), metadata.get("namespace")
    kind, api_version = str(obj.get("kind", "")), str(obj.get("apiVersion", ""))
    if not namespace and kind in NAMESPACED_KINDS:
        namespace = default_namespace
    resource_name = f"{namespace}/{name}" if namespace else name
    return kubernetes_type(api_version, kind), f"{prefix}:{resource_name}" if prefix else resource_name


def child_urn(parent_urn: str, type_: str, name: str) -> str:
    """The URN the engine gives a child: the parent's type chain + `$<type>`, then `::<name>`
    (pulumi sdk/go/common/resource/urn/urn.go)."""
    head, _, _ = parent_urn.rpartition("::")
    prefix, _, parent_types = head.rpartition("::")
    return f"{prefix}::{parent_types}${type_}::{name}"


def predicted_child_urns(configfile_urn: str, objects: list[Mapping[str, Any]], prefix: str) -> list[str]:
    """The URNs of the children a yaml/v2 ConfigFile registers for `objects` (one per object)."""
    return [child_urn(configfile_urn, *child_resource(obj, prefix)) for obj in objects]


def legacy_child_name(name: str, prefix: str, legacy_prefix: str) -> Optional[str]:
    """The name a child had under the old fixed prefix (for its alias), or None when it has none."""
    if prefix == legacy_prefix or not name.startswith(prefix + ":"):
        return None
    return legacy_prefix + name[len(prefix):]


# --- transforms (registered on the ConfigFile; applied by the engine to its children) ---------

def pin_to_node_pool(type_: str, props: Mapping[str, Any], node_pool: str) -> Optional[dict[str, Any]]:
    """A Deployment's properties with its pods pinned to `node_pool`; None for any other kind.

    The controllers (and their webhooks, which every JobSet and JobSet pod creation calls) must
    never land on a TPU host: a slice's nodes come and go with the slice, and a controller pod on
    one would take the webhook down with it.
    """
    if type_ != DEPLOYMENT:
        return None
    out = copy.deepcopy(dict(props))
    pod = out.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    selector = dict(pod.get("nodeSelector") or {})
    selector[NODE_POOL_LABEL] = node_pool
    pod["nodeSelector"] = dict(sorted(selector.items()))
    return out


def is_protected_crd(type_: str, props: Mapping[str, Any], crds: tuple[str, ...]) -> bool:
    """True for the CRDs whose deletion would delete every object of that kind (the JobSet CRD).

    Whether such a CRD is protected is decided by `protection.protect_child("crd", ...)`: only where the
    cluster is protected, so that `pulumi destroy` of a dev stack meets no protected resource."""
    if type_ != CRD:
        return False
    return value_at(props, "metadata.name") in crds


PATCH_FORCE_ANNOTATION = "pulumi.com/patchForce"


def with_force_apply(props: Mapping[str, Any]) -> Optional[dict[str, Any]]:
    """A manifest object's properties with `pulumi.com/patchForce: "true"`; None for anything else.

    The Pulumi analogue of XPK's `kubectl apply --server-side --force-conflicts`: when the controller
    was installed before (an adopted cluster, `kubectl apply`, XPK), the pinned manifest takes the
    fields it declares instead of failing with a field-manager conflict. Fields it does not declare
    (the caBundle the cert rotator injects, the webhook Secret's data) stay with their managers.
    """
    if not isinstance(props.get("kind"), str) or not isinstance(props.get("apiVersion"), str):
        return None
    out = copy.deepcopy(dict(props))
    metadata = out.setdefault("metadata", {})
    annotations = dict(metadata.get("annotations") or {})
    annotations[PATCH_FORCE_ANNOTATION] = "true"
    metadata["annotations"] = dict(sorted(annotations.items()))
    return out
