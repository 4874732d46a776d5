"""Where the JobSet, Kueue and LeaderWorkerSet controllers come from, and the patches applied to their manifests.

Pure data and functions (no Pulumi import). The component installs each controller with a
`kubernetes:yaml/v2:ConfigFile` whose `file` is either the pinned upstream release URL or a local
manifest the user reviewed/vendored (air-gapped installs); the transform functions below are what
the component registers on that ConfigFile, kept here so tests can call them directly (transforms
do not run under the mock engine).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from ..naming import JOBSET_CRD, JOBSET_NAMESPACE, KUEUE_NAMESPACE, LWS_CRD, LWS_NAMESPACE, NODE_POOL_LABEL


@dataclass(frozen=True)
class Release:
    """One controller's upstream release artifacts (JOBSET_INSTALL.md §2, §7.2)."""

    addon: str  # config section: jobset | kueue | lws
    url: str  # release manifest URL template, {version} = vX.Y.Z
    image: str  # controller image name (last path segment before the tag)
    namespace: str  # namespace the release manifest creates
    crd: str  # the CRD whose presence identifies the manifest
    oldest: str  # oldest version this project supports (see MINIMUM_REASON)


RELEASES: dict[str, Release] = {
    "jobset": Release(
        addon="jobset",
        url="https://github.com/kubernetes-sigs/jobset/releases/download/{version}/manifests.yaml",
        image="jobset", namespace=JOBSET_NAMESPACE, crd=JOBSET_CRD, oldest="v0.7.0",
    ),
    "kueue": Release(
        addon="kueue",
        url="https://github.com/kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml",
        image="kueue", namespace=KUEUE_NAMESPACE, crd="clusterqueues.kueue.x-k8s.io", oldest="v0.17.0",
    ),
    "lws": Release(
        addon="lws",
        url="https://github.com/kubernetes-sigs/lws/releases/download/{version}/manifests.yaml",
        image="lws", namespace=LWS_NAMESPACE, crd=LWS_CRD, oldest="v0.5.0",
    ),
}

MINIMUM_REASON = {
    "jobset": "the Pathways JobSet writes failurePolicy.restartStrategy (JobSet v0.7+) and uses the coordinator, "
              "failure rules and publishNotReadyAddresses (v0.6+)",
    "kueue": "the queue objects use kueue.x-k8s.io/v1beta2, validated against the v0.17.1 and v0.19.2 CRDs",
    "lws": "v0.4.x release manifests run a kube-rbac-proxy sidecar whose image (gcr.io/kubebuilder/kube-rbac-proxy) "
           "was deleted from gcr.io, so the controller never becomes Ready and every LeaderWorkerSet create fails "
           "at the webhook; v0.5.0 dropped that sidecar and added the DNS-1035 name check the Service names rely on",
}

# Kubernetes object types as Pulumi type tokens (what a transform sees in `type_`).
DEPLOYMENT_TYPE = "kubernetes:apps/v1:Deployment"
CRD_TYPE = "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"


def version_key(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(p) for p in version.lstrip("v").split("."))
    return major, minor, patch


@dataclass(frozen=True)
class InstallSource:
    """What the ConfigFile of one controller installs, and from where."""

    addon: str
    version: str
    file: str  # release URL or local manifest path, exactly as the ConfigFile receives it
    origin: str  # "release" (pinned upstream URL) | "manifest" (local file)
    resource_prefix: str  # stable (never contains the version): child URNs survive upgrades

    @property
    def describe(self) -> str:
        return f"{self.addon} {self.version} from {self.file}"


def install_source(addon: str, version: str, manifest: Optional[str]) -> InstallSource:
    release = RELEASES[addon]
    if manifest is not None:
        return InstallSource(addon, version, manifest, "manifest", addon)
    return InstallSource(addon, version, release.url.format(version=version), "release", addon)


# --- local manifest checks --------------------------------------------------------------------

_IMAGE = re.compile(r"""^\s*(?:-\s+)?image:\s*["']?([^\s"']+)["']?\s*$""", re.MULTILINE)
_NAME = re.compile(r"""^\s*name:\s*["']?([^\s"']+)["']?\s*$""", re.MULTILINE)


def controller_image_tags(text: str, image: str) -> list[str]:
    """Tags of every `<registry>/.../<image>:<tag>` image in a manifest (digest-only references give '')."""
    tags = []
    for ref in _IMAGE.findall(text):
        name, _, digest = ref.partition("@")
        last = name.rsplit("/", 1)[-1]
        repo, _, tag = last.partition(":")
        if repo == image:
            tags.append(tag if tag else ("" if digest else "latest"))
    return tags


def manifest_problems(addon: str, version: str, path: str, base: Path | None = None) -> list[str]:
    """Why a local manifest cannot stand for `<addon> <version>` (empty when it can).

    Checks: the file exists and is readable, declares the controller's CRD, and its controller
    image tag (when it has one rather than a digest) is the configured version, so the version the
    plan shows is the version that gets installed.
    """
    release = RELEASES[addon]
    file = Path(path)
    if not file.is_absolute() and base is not None:
        file = base / file
    if not file.is_file():
        return [f"is not an existing file (relative paths are read from the Pulumi project directory, "
                f"{base or Path.cwd()}); download {release.url.format(version=version)} there, or remove "
                f"{addon}.manifest to install that release URL directly"]
    try:
        text = file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        return [f"cannot be read: {exc}"]
    out = []
    if release.crd not in _NAME.findall(text):
        out.append(f"does not define the CustomResourceDefinition {release.crd}; is it the {addon} release "
                   f"manifests.yaml ({release.url.format(version=version)})?")
    tags = sorted(set(controller_image_tags(text, release.image)))
    other = [t for t in tags if t and t != version]
    if other:
        out.append(f"runs the {release.image} controller image tagged {', '.join(other)}, but {addon}.version is "
                   f"{version}; set {addon}.version to the manifest's version (it is what the plan reports)")
    return out


# --- transforms (registered on the ConfigFile; applied by the engine to its children) ---------

def pin_to_node_pool(type_: str, props: Mapping[str, Any], node_pool: str) -> Optional[dict[str, Any]]:
    """A Deployment's properties with its pods pinned to `node_pool`; None for any other kind.

    The controllers (and their webhooks, which every JobSet and JobSet pod creation calls) must
    never land on a TPU host: a slice's nodes come and go with the slice, and a controller pod on
    one would take the webhook down with it.
    """
    if type_ != DEPLOYMENT_TYPE:
        return None
    out = copy.deepcopy(dict(props))
    pod = out.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    selector = dict(pod.get("nodeSelector") or {})
    selector[NODE_POOL_LABEL] = node_pool
    pod["nodeSelector"] = dict(sorted(selector.items()))
    return out


def must_protect(type_: str, props: Mapping[str, Any], crds: tuple[str, ...]) -> bool:
    """True for the CRDs whose deletion would delete every object of that kind (the JobSet CRD)."""
    if type_ != CRD_TYPE:
        return False
    metadata = props.get("metadata") or {}
    return isinstance(metadata, Mapping) and metadata.get("name") in crds


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
