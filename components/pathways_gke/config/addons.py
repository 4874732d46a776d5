"""`pathways-gke:jobset`, `pathways-gke:kueue` and `pathways-gke:lws`: the controllers installed into the cluster."""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import AfterValidator

from ..releases import MINIMUM_REASON, RELEASES, default_version, version_key
from .base import Model, fail
from .types import RELEASE_TAG, ImageRef


def release(addon: str, example: str) -> AfterValidator:
    """A pinned release tag no older than the addon's oldest supported release."""
    def check(value: str) -> str:
        if not RELEASE_TAG.match(value):
            raise fail("version", f"is not a pinned release tag; write it as vMAJOR.MINOR.PATCH (e.g. {example})")
        oldest = RELEASES[addon].oldest
        if version_key(value) < version_key(oldest):
            raise fail("version", f"is older than {oldest}, the oldest supported release: {MINIMUM_REASON[addon]}")
        return value
    return AfterValidator(check)


def _manifest(value: str) -> str:
    """Shape only; existence and content are checked with the whole stack (config/checks.py)."""
    if not value:
        raise fail("manifest", "is empty; give the path of a local release manifests.yaml, or remove the key")
    if "://" in value:
        raise fail("manifest", "must be a local file path (for air-gapped or reviewed installs); to install "
                   "from the upstream release URL leave manifest unset and pin the version")
    return value


ManifestPath = Annotated[str, AfterValidator(_manifest)]


class JobSetConfig(Model):
    """The JobSet controller installed into the cluster."""

    version: Annotated[str, release("jobset", default_version("jobset"))] = default_version("jobset")
    """Pinned JobSet release (vMAJOR.MINOR.PATCH, >= v0.7.0; releases.py). Default: "v0.12.0"."""
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the bundled one."""
    size_for_cluster: bool = True
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""


class KueueConfig(Model):
    """Kueue admission (queues, priority classes, queued provisioning)."""

    enabled: bool = False
    """Install Kueue and submit workloads through its queue. Default: false."""
    version: Annotated[str, release("kueue", default_version("kueue"))] = default_version("kueue")
    """Pinned Kueue release (vMAJOR.MINOR.PATCH, >= v0.17.0; releases.py). Default: "v0.19.5"."""
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the bundled one."""
    size_for_cluster: bool = True
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""


class LwsConfig(Model):
    """The LeaderWorkerSet controller (installed only when a workload runs in mode serving or service)."""

    version: Annotated[str, release("lws", default_version("lws"))] = default_version("lws")
    """Pinned LWS release (vMAJOR.MINOR.PATCH, >= v0.5.0; releases.py). Default: "v0.10.0"."""
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the release URL."""
    gate_image: ImageRef = "registry.k8s.io/kubectl:v1.34.1"
    """kubectl image of the Job that waits until the LWS webhook answers. Default: "registry.k8s.io/kubectl:v1.34.1"."""
