"""`pathways-gke:workloads`: Pathways (head + workers) and multi-controller JAX JobSets."""

from __future__ import annotations

import re
import shlex
from typing import Literal, Optional, Union

from pydantic import Field, field_validator

from .base import Model, fail

# JobSet puts `<name>-pathways-head-0-0.<name>` into a 63-character label (PATHWAYS_JOBSET.md §6).
MAX_WORKLOAD_NAME = 22
DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
IMAGE = re.compile(r"^[a-z0-9][a-z0-9._\-/:]*[a-z0-9](@sha256:[0-9a-f]{64})?$")

Runtime = Literal["pathways", "jax"]
Mode = Literal["default", "colocated", "headless"]


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


class PathwaysSettings(Model):
    """Pathways server options (PATHWAYS_JOBSET.md §2, §5)."""

    version: Optional[str] = Field(default=None, description="Pathways image tag, e.g. jax-0.9.2; never 'latest'")
    gcs_scratch: Optional[str] = None
    elastic_slices: int = Field(default=0, ge=0)
    max_slice_restarts: int = Field(default=1, ge=1)

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


QUANTITY = re.compile(r"^([0-9]+(\.[0-9]+)?|\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")


def check_quantity(value: str, kind: str, example: str) -> str:
    if not QUANTITY.match(value) or float(re.sub(r"[a-zA-Z]+$", "", value)) <= 0:
        raise fail(kind, f"is not a positive Kubernetes quantity (e.g. {example})")
    return value


class JaxSettings(Model):
    """Multi-controller JAX options (runtime: jax).

    On TPU the process layout comes from the TPU pool (one process per TPU VM, one Job per slice);
    on the CPU pool (no tpuPool) it is set here.
    """

    processes: Optional[int] = Field(default=None, ge=1, le=4096,
                                     description="CPU workloads: total number of JAX processes (pods)")
    slices: Optional[int] = Field(default=None, ge=1, le=1024,
                                  description="CPU workloads: split the processes into this many Jobs, like TPU "
                                  "slices (default 1); processes must be a multiple of it")
    cpu: str = Field(default="1", description="CPU workloads: CPU request per process")
    memory: str = Field(default="4Gi", description="CPU workloads: memory request and limit per process")

    @field_validator("cpu", "memory", mode="before")
    @classmethod
    def _number_as_text(cls, value: object) -> object:
        # YAML `cpu: 2` arrives as an int; Kubernetes quantities are strings.
        return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value

    @field_validator("cpu")
    @classmethod
    def _cpu(cls, value: str) -> str:
        return check_quantity(value, "cpu", "500m, 2")

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: str) -> str:
        return check_quantity(value, "memory", "512Mi, 4Gi")


class WorkloadConfig(Model):
    name: str
    runtime: Runtime = "pathways"
    tpu_pool: Optional[str] = None
    mode: Mode = "default"
    image: Optional[str] = None
    command: Optional[Union[str, list[str]]] = None
    pathways: PathwaysSettings = Field(default_factory=PathwaysSettings)
    jax: JaxSettings = Field(default_factory=JaxSettings)
    max_restarts: int = Field(default=0, ge=0, le=1000)
    priority_class: Optional[str] = None
    env: dict[str, str] = Field(default_factory=dict)
    secret_env: dict[str, str] = Field(default_factory=dict, description="ENV_VAR: key in pathways-gke:secrets")
    service_account: Optional[str] = None
    termination_grace_period_seconds: Optional[int] = Field(default=None, ge=0, le=86400)
    privileged: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if len(value) > MAX_WORKLOAD_NAME:
            raise fail("name", f"is {len(value)} characters; at most {MAX_WORKLOAD_NAME} are allowed (JobSet writes "
                       f"'<name>-pathways-head-0-0.<name>' into a 63-character label)")
        if not DNS_1035.match(value):
            raise fail("name", "must be lower-case letters, digits and '-', starting with a letter "
                       "(a DNS-1035 label)")
        return value

    @field_validator("image")
    @classmethod
    def _image(cls, value: Optional[str]) -> Optional[str]:
        return None if value is None else check_image(value)

    @field_validator("command")
    @classmethod
    def _command(cls, value: Optional[Union[str, list[str]]]) -> Optional[Union[str, list[str]]]:
        if isinstance(value, str) and not value.strip():
            raise fail("command", "is empty")
        if isinstance(value, list) and not value:
            raise fail("command", "is an empty list")
        return value

    @field_validator("env", "secret_env")
    @classmethod
    def _env(cls, value: dict[str, str]) -> dict[str, str]:
        return check_env(value)

    @property
    def command_text(self) -> Optional[str]:
        if self.command is None:
            return None
        return self.command if isinstance(self.command, str) else shlex.join(self.command)
