"""`pathways-gke:jobset`, `pathways-gke:kueue` and `pathways-gke:lws`: the controllers installed into the cluster."""

from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator

from ..releases import MINIMUM_REASON, RELEASES, version_key
from .base import Model, fail
from .pathways import check_image

RELEASE = re.compile(r"^v[0-9]+\.[0-9]+\.[0-9]+$")


def check_release(value: str, example: str, addon: str = "") -> str:
    if not RELEASE.match(value):
        raise fail("version", f"is not a pinned release tag; write it as vMAJOR.MINOR.PATCH (e.g. {example})")
    if addon:
        oldest = RELEASES[addon].oldest
        if version_key(value) < version_key(oldest):
            raise fail("version", f"is older than {oldest}, the oldest supported release: {MINIMUM_REASON[addon]}")
    return value


def check_manifest(value: Optional[str]) -> Optional[str]:
    """Shape only; existence and content are checked with the whole stack (config/checks.py)."""
    if value is None:
        return value
    if not value:
        raise fail("manifest", "is empty; give the path of a local release manifests.yaml, or remove the key")
    if "://" in value:
        raise fail("manifest", "must be a local file path (for air-gapped or reviewed installs); to install "
                   "from the upstream release URL leave manifest unset and pin the version")
    return value


class JobSetConfig(Model):
    version: str = "v0.10.1"
    manifest: Optional[str] = Field(default=None, description="local release manifests.yaml instead of the URL")
    size_for_cluster: bool = Field(default=True, description="controller resources from the stack's VM count")

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return check_release(value, "v0.10.1", "jobset")

    @field_validator("manifest")
    @classmethod
    def _manifest(cls, value: Optional[str]) -> Optional[str]:
        return check_manifest(value)


class KueueConfig(Model):
    enabled: bool = False
    version: str = "v0.17.1"
    manifest: Optional[str] = Field(default=None, description="local release manifests.yaml instead of the URL")
    size_for_cluster: bool = Field(default=True, description="controller resources from the stack's VM count")

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return check_release(value, "v0.17.1", "kueue")

    @field_validator("manifest")
    @classmethod
    def _manifest(cls, value: Optional[str]) -> Optional[str]:
        return check_manifest(value)


class LwsConfig(Model):
    """The LeaderWorkerSet controller, installed only when a workload runs in mode serving or service."""

    version: str = "v0.10.0"
    manifest: Optional[str] = Field(default=None, description="local release manifests.yaml instead of the URL")
    gate_image: str = Field(default="registry.k8s.io/kubectl:v1.34.1",
                            description="kubectl image of the Job that waits until the LWS webhook answers")

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return check_release(value, "v0.10.0", "lws")

    @field_validator("manifest")
    @classmethod
    def _manifest(cls, value: Optional[str]) -> Optional[str]:
        return check_manifest(value)

    @field_validator("gate_image")
    @classmethod
    def _gate_image(cls, value: str) -> str:
        return check_image(value)
