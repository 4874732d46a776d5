"""Pathways workload options: the `pathways:` block and the user-container / pod options of a workload.

Kept apart from `workloads.py` (which holds the per-workload model shared with the multi-controller JAX
runtime) so the Pathways surface reads in one place. Reference: the JobSet XPK renders
(https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2);
the differences are in docs/coming-from-xpk.md.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from .base import Model, fail

ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
IMAGE = re.compile(r"^[a-z0-9][a-z0-9._\-/:]*[a-z0-9](@sha256:[0-9a-f]{64})?$")
DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
FLAG = re.compile(r"^--[A-Za-z][A-Za-z0-9_.\-]*(=[^\n\r]*)?$")
GCS_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._\-]{1,220}[a-z0-9]$")

ImagePullPolicy = Literal["Always", "IfNotPresent", "Never"]


def image_is_pinned(image: str) -> bool:
    """A digest, or a tag other than `latest` (the last path segment carries the tag)."""
    if "@sha256:" in image:
        return True
    last = image.rsplit("/", 1)[-1]
    return ":" in last and not last.endswith(":latest")


def check_image(value: str) -> str:
    if not IMAGE.match(value):
        raise fail("image", "is not a container image reference (registry/path/name:tag)")
    if not image_is_pinned(value):
        raise fail("image", "is not pinned: give an explicit tag other than 'latest', or a @sha256 digest, "
                   "so every pod restart runs the same build")
    return value


def check_env(env: dict[str, str]) -> dict[str, str]:
    for key in env:
        if not ENV_NAME.match(key):
            raise fail("env", f"'{key}' is not an environment variable name (letters, digits, '_', not starting "
                       "with a digit)")
    return env


# --- quantities (Kubernetes resource.Quantity, the subset a container uses) -------------------------------

_SUFFIX: dict[str, int | Decimal] = {"": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
           "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
QUANTITY = re.compile(r"^(?P<num>[0-9]+(\.[0-9]+)?)(?P<suffix>m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")


def parse_quantity(text: str) -> Decimal:
    """`"8Gi"` -> bytes, `"500m"` -> 0.5; raises ValueError on anything Kubernetes would not accept here."""
    match = QUANTITY.match(str(text))
    if not match:
        raise ValueError(text)
    try:
        return Decimal(match["num"]) * Decimal(_SUFFIX[match["suffix"] or ""])
    except InvalidOperation:  # pragma: no cover - the regex already rules this out
        raise ValueError(text) from None


RESOURCE_NAMES = ("cpu", "memory", "ephemeral-storage")


def _check_resource_list(values: dict[str, str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in values.items():
        if key not in RESOURCE_NAMES:
            raise fail("resources", f"'{key}' is not a container resource we set here; allowed: "
                       f"{', '.join(RESOURCE_NAMES)} (TPUs belong to the workers)")
        text = str(value)
        try:
            parse_quantity(text)
        except ValueError:
            raise fail("resources", f"{what}.{key} '{text}' is not a Kubernetes quantity (e.g. 4, 500m, 16Gi, "
                       "100G)") from None
        out[key] = text
    return out


# The user container's defaults: requests so the head pod schedules next to the two Pathways servers on a
# 64-vCPU / 256 GB CPU node (CTK's requests); limits as XPK writes them.
DEFAULT_USER_REQUESTS = {"cpu": "2", "memory": "8Gi"}
DEFAULT_USER_LIMITS = {"cpu": "24", "memory": "100G"}


class ContainerResources(Model):
    """Requests and limits of the user container (the head pod's main container).

    Giving `requests` or `limits` replaces that half of the default as a whole.
    """

    requests: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_USER_REQUESTS))
    limits: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_USER_LIMITS))

    @field_validator("requests")
    @classmethod
    def _requests(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_resource_list(value, "requests")

    @field_validator("limits")
    @classmethod
    def _limits(cls, value: dict[str, str]) -> dict[str, str]:
        return _check_resource_list(value, "limits")

    @model_validator(mode="after")
    def _requests_within_limits(self) -> "ContainerResources":
        for key, request in self.requests.items():
            limit = self.limits.get(key)
            if limit is not None and parse_quantity(request) > parse_quantity(limit):
                raise fail("resources", f"requests.{key} {request} is larger than limits.{key} {limit}; "
                           "Kubernetes rejects such a pod", field="requests")
        return self


# --- the `pathways:` block --------------------------------------------------------------------------------

# Flags and env variables pathways-gke sets itself; overriding them through custom flags/env would give a
# container the same flag twice (the servers use the last one) and hide the managed value.
MANAGED_FLAGS = ("--server_port", "--resource_manager_address", "--gcs_scratch_location", "--node_type",
                 "--instance_count", "--instance_type", "--num_elastic_slices", "--enable_metrics_collection")


def _check_flags(flags: list[str]) -> list[str]:
    for flag in flags:
        if not FLAG.match(flag):
            raise fail("flags", f"'{flag}' is not a server flag: write each as one list item '--name=value' "
                       "(no spaces around '=', no newlines)")
        name = flag.split("=", 1)[0]
        if name in MANAGED_FLAGS:
            raise fail("flags", f"'{name}' is set by pathways-gke; use the matching pathways setting "
                       "(gcsScratch, elasticSlices, metrics) instead")
    return flags


class PathwaysImages(Model):
    """Custom images per Pathways component (used verbatim; must be pinned)."""

    server: Optional[str] = Field(default=None, description="resource manager (pathways-rm)")
    proxy: Optional[str] = Field(default=None, description="IFRT proxy (pathways-proxy)")
    worker: Optional[str] = Field(default=None, description="pathways-worker; defaults to the server image")
    colocated_python: Optional[str] = Field(default=None, description="enables the colocated-python sidecar "
                                            "on every worker pod")

    @field_validator("server", "proxy", "worker", "colocated_python")
    @classmethod
    def _image(cls, value: Optional[str]) -> Optional[str]:
        return None if value is None else check_image(value)


class PathwaysFlags(Model):
    """Extra server flags per component, appended after the managed ones (one list item per flag)."""

    server: list[str] = Field(default_factory=list)
    proxy: list[str] = Field(default_factory=list)
    worker: list[str] = Field(default_factory=list)

    @field_validator("server", "proxy", "worker")
    @classmethod
    def _flags(cls, value: list[str]) -> list[str]:
        return _check_flags(value)


class PathwaysEnv(Model):
    """Extra environment variables per component, appended after the managed ones."""

    server: dict[str, str] = Field(default_factory=dict)
    proxy: dict[str, str] = Field(default_factory=dict)
    worker: dict[str, str] = Field(default_factory=dict)

    @field_validator("server", "proxy", "worker")
    @classmethod
    def _env(cls, value: dict[str, str]) -> dict[str, str]:
        return check_env({k: str(v) for k, v in value.items()})


class PathwaysSettings(Model):
    """Pathways server options (the flags of the pathways-rm, -proxy and -worker containers; docs/pathways-workloads.md)."""

    version: Optional[str] = Field(default=None, description="Pathways image tag, e.g. jax-0.9.2; never 'latest'")
    gcs_scratch: Optional[str] = None
    elastic_slices: int = Field(default=0, ge=0)
    max_slice_restarts: int = Field(default=1, ge=1, le=100000)
    images: PathwaysImages = Field(default_factory=PathwaysImages)
    flags: PathwaysFlags = Field(default_factory=PathwaysFlags)
    env: PathwaysEnv = Field(default_factory=PathwaysEnv)
    metrics: bool = Field(default=False, description="--enable_metrics_collection=true on every server")

    @field_validator("version")
    @classmethod
    def _version(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        if value == "latest" or not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}", value):
            raise fail("version", "is not a pinned Pathways image tag (e.g. jax-0.9.2 or 20260608-jax_0.10.1); "
                       "'latest' is refused")
        return value

    @field_validator("gcs_scratch")
    @classmethod
    def _gcs(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not re.fullmatch(r"gs://[a-z0-9][a-z0-9._\-]{1,220}[a-z0-9](/.*)?", value):
            raise fail("gcs", "is not a GCS location (gs://bucket/path)")
        return value

    @property
    def uses_default_images(self) -> bool:
        """A default image is used: the server or the proxy is not given (the worker follows the server)."""
        return self.images.server is None or self.images.proxy is None


# --- pod-level options of a Pathways workload -------------------------------------------------------------


class GcsFuseVolume(Model):
    """A Cloud Storage bucket mounted through the GKE GCS FUSE CSI driver (needs Workload Identity)."""

    name: str
    bucket: str
    mount_path: str
    read_only: bool = False
    mount_options: list[str] = Field(default_factory=list, description="e.g. implicit-dirs, only-dir=ckpt")
    workers: bool = Field(default=False, description="also mount into every pathways-worker container")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not DNS_1123_LABEL.match(value) or len(value) > 63 or value == "shared-tmp":
            raise fail("volume", "is not a volume name: lower-case letters, digits and '-', at most 63 "
                       "characters, not 'shared-tmp'")
        return value

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        if value.startswith("gs://"):
            raise fail("bucket", "is the bucket name only (without gs://)")
        if not GCS_BUCKET.match(value):
            raise fail("bucket", "is not a Cloud Storage bucket name")
        return value

    @field_validator("mount_path")
    @classmethod
    def _path(cls, value: str) -> str:
        if not value.startswith("/") or value in ("/", "/tmp") or ":" in value:
            raise fail("path", "must be an absolute path other than / and /tmp")
        return value

    @field_validator("mount_options")
    @classmethod
    def _options(cls, value: list[str]) -> list[str]:
        for option in value:
            if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.:=\-]*", option):
                raise fail("option", f"'{option}' is not a gcsfuse mount option (e.g. implicit-dirs)")
        return value
