"""`pathways-gke:jobset`, `pathways-gke:kueue` and `pathways-gke:lws`: the controllers installed into the cluster."""

from __future__ import annotations

from typing import Annotated, Optional

from pydantic import AfterValidator, Field, model_validator

from ..releases import (IN_PLACE_RESTART_GATE, IN_PLACE_RESTART_REASON, MINIMUM_REASON, RELEASES, default_version,
                        jobset_feature_gates, release_description, version_key)
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

    version: Annotated[str, release("jobset", default_version("jobset")),
                       Field(description=release_description("jobset", "Pinned JobSet release"))] = \
        default_version("jobset")
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the pinned release's manifest URL (releases.py)."""
    size_for_cluster: bool = True
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""
    feature_gates: dict[str, bool] = Field(default_factory=dict)
    """JobSet feature gates written into the controller's configuration (ConfigMap jobset-manager-config;
    JobSet >= v0.11.0), e.g. {RestartJob: true}; only the gates the pinned release knows. RestartJob is turned on
    for you when a workload sets restart.perSlice; InPlaceRestart is refused (docs/resilience.md)."""

    @model_validator(mode="after")
    def _known_gates(self) -> "JobSetConfig":
        known = jobset_feature_gates(self.version)
        for gate, on in self.feature_gates.items():
            if gate == IN_PLACE_RESTART_GATE and on:
                raise fail("feature_gates", f"turns on {gate}: {IN_PLACE_RESTART_REASON}",
                           field=f"featureGates.{gate}")
            if gate not in known:
                allowed = f"; JobSet {self.version} knows: {', '.join(sorted(known))}" if known else \
                    f"; JobSet {self.version} has no feature gates (featureGates arrived in v0.11.0)"
                raise fail("feature_gates", f"is not a feature gate of JobSet {self.version}, whose controller "
                           f"refuses to start on an unknown gate{allowed}", field=f"featureGates.{gate}")
        return self


class KueueConfig(Model):
    """Kueue admission (queues, priority classes, queued provisioning)."""

    enabled: bool = False
    """Install Kueue and submit workloads through its queue. Default: false."""
    version: Annotated[str, release("kueue", default_version("kueue")),
                       Field(description=release_description("kueue", "Pinned Kueue release"))] = \
        default_version("kueue")
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the pinned release's manifest URL (releases.py)."""
    size_for_cluster: bool = True
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""


class LwsConfig(Model):
    """The LeaderWorkerSet controller (installed only when a workload runs in mode serving or service)."""

    version: Annotated[str, release("lws", default_version("lws")),
                       Field(description=release_description("lws", "Pinned LWS release"))] = \
        default_version("lws")
    manifest: Optional[ManifestPath] = None
    """Path of a vendored install manifest to use instead of the release URL."""
    gate_image: ImageRef = "registry.k8s.io/kubectl:v1.34.1"
    """kubectl image of the Job that waits until the LWS webhook answers. Default: "registry.k8s.io/kubectl:v1.34.1"."""
