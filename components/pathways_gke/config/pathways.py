"""Pathways workload options: the `pathways:` block and the user-container / pod options of a workload.

Kept apart from `workloads.py` (which holds the per-workload model shared with the multi-controller JAX
runtime) so the Pathways surface reads in one place. Reference: the JobSet XPK renders
(https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2);
the differences are in docs/coming-from-xpk.md.
"""

from __future__ import annotations

import re
import shlex
from typing import Annotated, Literal, Optional, Union

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

from .base import Model, fail
from .types import _number_as_text
from .types import (IMAGE_TAG, BucketName, ContainerName, EnvVars, GcsFuseMountOptions, GcsPath, ImageRef,
                    dns_1123_label, parse_quantity)

FLAG = re.compile(r"^--[A-Za-z][A-Za-z0-9_.\-]*(=[^\n\r]*)?$")

ImagePullPolicy = Literal["Always", "IfNotPresent", "Never"]


# --- the user container's resources ----------------------------------------------------------------------

RESOURCE_NAMES = ("cpu", "memory", "ephemeral-storage")


def _resource_list(what: str) -> AfterValidator:
    def check(values: dict[str, str]) -> dict[str, str]:
        for key, value in values.items():
            if key not in RESOURCE_NAMES:
                raise fail("resources", f"'{key}' is not a container resource we set here; allowed: "
                           f"{', '.join(RESOURCE_NAMES)} (TPUs belong to the workers)")
            try:
                parse_quantity(value)
            except ValueError:
                raise fail("resources", f"{what}.{key} '{value}' is not a Kubernetes quantity (e.g. 4, 500m, "
                           "16Gi, 100G)") from None
        return values
    return AfterValidator(check)


# `cpu: 4` unquoted arrives as a number; a quantity is its text
_Quantity = Annotated[str, BeforeValidator(_number_as_text)]

# The user container's defaults: requests so the head pod schedules next to the two Pathways servers on a
# 64-vCPU / 256 GB CPU node (CTK's requests); limits as XPK writes them.
DEFAULT_USER_REQUESTS = {"cpu": "2", "memory": "8Gi"}
DEFAULT_USER_LIMITS = {"cpu": "24", "memory": "100G"}


def requests_within_limits(requests: dict[str, str], limits: dict[str, str]) -> None:
    """The API server refuses a container whose request of a resource exceeds its limit."""
    for key, request in requests.items():
        limit = limits.get(key)
        if limit is not None and parse_quantity(request) > parse_quantity(limit):
            raise fail("resources", f"requests.{key} {request} is larger than limits.{key} {limit}; "
                       "Kubernetes rejects such a pod", field="requests")


class ContainerResources(Model):
    """Requests and limits of the user container; giving one half replaces that half of the default.

    Giving `requests` or `limits` replaces that half of the default as a whole.
    """

    requests: Annotated[dict[str, _Quantity], _resource_list("requests")] = Field(
        default_factory=lambda: dict(DEFAULT_USER_REQUESTS))
    """Resource requests (quantities). Default: cpu 2, memory 8Gi."""
    limits: Annotated[dict[str, _Quantity], _resource_list("limits")] = Field(
        default_factory=lambda: dict(DEFAULT_USER_LIMITS))
    """Resource limits (quantities). Default: cpu 24, memory 100G."""

    @model_validator(mode="after")
    def _requests_within_limits(self) -> "ContainerResources":
        requests_within_limits(self.requests, self.limits)
        return self


# --- the `pathways:` block --------------------------------------------------------------------------------

# Flags and env variables pathways-gke sets itself; overriding them through custom flags/env would give a
# container the same flag twice (the servers use the last one) and hide the managed value.
MANAGED_FLAGS = ("--server_port", "--resource_manager_address", "--gcs_scratch_location", "--node_type",
                 "--instance_count", "--instance_type", "--num_elastic_slices", "--enable_metrics_collection")


def _server_flags(flags: list[str]) -> list[str]:
    for flag in flags:
        if not FLAG.match(flag):
            raise fail("flags", f"'{flag}' is not a server flag: write each as one list item '--name=value' "
                       "(no spaces around '=', no newlines)")
        name = flag.split("=", 1)[0]
        if name in MANAGED_FLAGS:
            raise fail("flags", f"'{name}' is set by pathways-gke; use the matching pathways setting "
                       "(gcsScratch, elasticSlices, metrics) instead")
    return flags


ServerFlags = Annotated[list[str], AfterValidator(_server_flags)]


class PathwaysImages(Model):
    """Custom images per Pathways component (used verbatim; must be pinned; may be Outputs)."""

    server: Optional[ImageRef] = None
    """Resource manager image (pathways-rm)."""
    proxy: Optional[ImageRef] = None
    """IFRT proxy image (pathways-proxy)."""
    worker: Optional[ImageRef] = None
    """pathways-worker image; default: the server image."""
    colocated_python: Optional[ImageRef] = None
    """Colocated-python sidecar image; setting it adds the sidecar to every worker pod."""


class PathwaysFlags(Model):
    """Extra server flags per component ('--name=value', one item per flag), after the managed ones."""

    server: ServerFlags = Field(default_factory=list)
    """Extra resource-manager flags."""
    proxy: ServerFlags = Field(default_factory=list)
    """Extra IFRT proxy flags."""
    worker: ServerFlags = Field(default_factory=list)
    """Extra worker flags."""


class PathwaysEnv(Model):
    """Extra environment variables per component, after the managed ones."""

    server: EnvVars = Field(default_factory=dict)
    """Extra resource-manager environment."""
    proxy: EnvVars = Field(default_factory=dict)
    """Extra IFRT proxy environment."""
    worker: EnvVars = Field(default_factory=dict)
    """Extra worker environment."""


def _pathways_version(value: str) -> str:
    if value == "latest" or not IMAGE_TAG.match(value):
        raise fail("version", "is not a pinned Pathways image tag (e.g. jax-0.9.2 or 20260608-jax_0.10.1); "
                   "'latest' is refused")
    return value


PathwaysVersion = Annotated[str, AfterValidator(_pathways_version)]

# The JAX release a Pathways image tag is built for: `jax-0.9.2`, `20260128-jax_0.9.0` (Google's two tag styles).
_JAX_IN_TAG = re.compile(r"(?:^|-)jax[-_](\d+)\.(\d+)(?:\.(\d+))?$")


def jax_release_of(tag: str) -> Optional[tuple[int, int, int]]:
    """(major, minor, patch) of the JAX release in a Pathways image tag; None when the tag does not name one."""
    match = _JAX_IN_TAG.search(tag)
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


_ABSL_DURATION = re.compile(r"([0-9]+(\.[0-9]+)?(h|m|s|ms|us|ns))+")


def _absl_duration(value: str) -> str:
    if not _ABSL_DURATION.fullmatch(value) or not any(ch in "123456789" for ch in value):
        raise fail("duration", "is not a positive Abseil duration; e.g. 60s, 5m, 1h30m (units h, m, s, ms, us, ns)")
    return value


class PathwaysSettings(Model):
    """Pathways server options."""

    version: Optional[PathwaysVersion] = None
    """Pathways image tag, e.g. jax-0.9.2 ('latest' is refused)."""
    gcs_scratch: Optional[GcsPath] = None
    """GCS location for Pathways scratch data (gs://bucket/path)."""
    elastic_slices: int = Field(default=0, ge=0)
    """Number of slices that may be lost without failing the job (elastic training). Default: 0."""
    max_slice_restarts: int = Field(default=1, ge=1, le=100000)
    """Restarts allowed per slice (1-100000). Default: 1."""
    images: PathwaysImages = Field(default_factory=PathwaysImages)
    """Custom images per Pathways component."""
    flags: PathwaysFlags = Field(default_factory=PathwaysFlags)
    """Extra server flags per component."""
    env: PathwaysEnv = Field(default_factory=PathwaysEnv)
    """Extra environment variables per component."""
    metrics: bool = False
    """Enable metrics collection on every Pathways server. Default: false."""
    pipe_unreachable_timeout: Optional[Annotated[str, AfterValidator(_absl_duration)]] = None
    """How long a Pathways pipe may stay unreachable (e.g. a slice restarting) before the run fails, as an Abseil
    duration (60s, 5m, 1h30m): `ABSL_FLAGS=--pathways_pipe_unreachable_timeout=<it>` on the proxy, resource manager,
    user container and workers, as Cluster Toolkit's template sets 60s (cluster-toolkit 7c70d26). Default: unset
    (the servers' own default)."""

    @property
    def uses_default_images(self) -> bool:
        """A default image is used: the server or the proxy is not given (the worker follows the server)."""
        return self.images.server is None or self.images.proxy is None


# --- pod-level options of a Pathways workload -------------------------------------------------------------


def _mount_path(value: str) -> str:
    if not value.startswith("/") or value in ("/", "/tmp") or ":" in value:
        raise fail("path", "must be an absolute path other than / and /tmp")
    return value


class GcsFuseVolume(Model):
    """A Cloud Storage bucket mounted through the GKE GCS FUSE CSI driver (needs Workload Identity)."""

    name: Annotated[str, AfterValidator(dns_1123_label("a volume name", reserved=("shared-tmp",)))]
    """Volume name (DNS label, not 'shared-tmp')."""
    bucket: BucketName
    """Bucket name, without gs://."""
    mount_path: Annotated[str, AfterValidator(_mount_path)]
    """Absolute mount path other than / and /tmp."""
    read_only: bool = False
    """Mount read-only. Default: false."""
    mount_options: GcsFuseMountOptions = Field(default_factory=list)
    """gcsfuse mount options, e.g. implicit-dirs, only-dir=ckpt."""
    workers: bool = False
    """Also mount into every pathways-worker container. Default: false."""


# --- extra containers of the head pod ---------------------------------------------------------------------


class SidecarResources(Model):
    """Requests and limits of a sidecar container (none by default: it shares the head's node with the Pathways
    servers, and on a TPU VM with a worker)."""

    requests: Annotated[dict[str, _Quantity], _resource_list("requests")] = Field(default_factory=dict)
    """Resource requests (quantities)."""
    limits: Annotated[dict[str, _Quantity], _resource_list("limits")] = Field(default_factory=dict)
    """Resource limits (quantities)."""

    @model_validator(mode="after")
    def _requests_within_limits(self) -> "SidecarResources":
        requests_within_limits(self.requests, self.limits)
        return self


class Sidecar(Model):
    """An extra container in the head pod (a serving leader, a service backend's leader, a training head),
    beside the user container and the Pathways servers: e.g. JetStream's `jetstream-http` in front of the
    maxengine gRPC server (https://cloud.google.com/kubernetes-engine/docs/tutorials/serve-multihost-tpu-jetstream).

    In a LeaderWorkerSet leader it is a regular container; in a JobSet head a native sidecar (an init container
    with restartPolicy Always), so the head's Job still completes when the user container exits.
    """

    name: ContainerName
    """Container name (DNS label), unique in the pod; not containerName nor a Pathways container's name."""
    image: ImageRef
    """Image, pinned to a tag other than latest or to a digest."""
    command: Optional[Union[str, list[str]]] = None
    """Entrypoint (Kubernetes `command`; no shell): an argument list, or one string split into words as a shell
    would (`python3 -m server.main`, quotes group words); default the image's."""
    args: list[str] = Field(default_factory=list)
    """Arguments (Kubernetes `args`)."""
    env: EnvVars = Field(default_factory=dict)
    """Environment variables."""
    ports: list[int] = Field(default_factory=list)
    """TCP ports it listens on (1-65535, unique in the pod); serving.port may be one of them, and then the Service
    and the probes go to this container."""
    resources: SidecarResources = Field(default_factory=SidecarResources)
    """Requests and limits (default none)."""

    @model_validator(mode="after")
    def _shape(self) -> "Sidecar":
        if self.command is not None and not self.argv:
            raise fail("command", "is empty; remove it to run the image's entrypoint", field="command")
        for port in self.ports:
            if not 1 <= port <= 65535:
                raise fail("ports", f"{port} is not a port number (1-65535)", field="ports")
        if len(set(self.ports)) != len(self.ports):
            raise fail("ports", "lists a port twice", field="ports")
        return self

    @field_validator("command")
    @classmethod
    def _splittable(cls, value: Optional[Union[str, list[str]]]) -> Optional[Union[str, list[str]]]:
        if isinstance(value, str):
            try:
                shlex.split(value)
            except ValueError as exc:  # an unclosed quote
                raise fail("command", f"cannot be split into words: {exc} (quote it as a shell would, or give "
                           "a list)") from None
        return value

    @property
    def argv(self) -> list[str]:
        """The entrypoint as Kubernetes takes it: a string is split as the workload's command is read by bash."""
        if self.command is None:
            return []
        return shlex.split(self.command) if isinstance(self.command, str) else list(self.command)
