"""Where each controller (JobSet, Kueue, LeaderWorkerSet) is released, the oldest version we support and why,
and the checks of a local copy of a release manifest.

Pure data and functions at the bottom layer: the config models validate versions and manifests with it,
and addons/install.py builds the installs from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .naming import JOBSET_CRD, JOBSET_NAMESPACE, KUEUE_NAMESPACE, LWS_CRD, LWS_NAMESPACE


@dataclass(frozen=True)
class Release:
    """One controller's upstream release artifacts (https://github.com/kubernetes-sigs/jobset/releases,
    https://github.com/kubernetes-sigs/kueue/releases)."""

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

def version_key(version: str) -> tuple[int, int, int]:
    major, minor, patch = (int(p) for p in version.lstrip("v").split("."))
    return major, minor, patch


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
