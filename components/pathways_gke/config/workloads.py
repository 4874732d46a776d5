"""`pathways-gke:workloads`: Pathways (head + workers) and multi-controller JAX JobSets, and Pathways serving
(`mode: serving` / `mode: service`, on a LeaderWorkerSet; their blocks live in serving.py)."""

from __future__ import annotations

import re
import shlex
from typing import Any, Literal, Optional, Union

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from ..errors import Problem
from .access import GSA_EMAIL, BucketAccess
from .base import Model, fail
from .pathways import (ContainerResources, GcsFuseVolume, ImagePullPolicy, PathwaysSettings, check_env,
                       check_image, image_is_pinned, parse_quantity)
from .serving import ServiceSettings, ServingSettings

__all__ = ["JaxSettings", "PathwaysSettings", "WorkloadConfig", "check_env", "check_image", "image_is_pinned"]

# JobSet puts `<name>-pathways-head-0-0.<name>` into a 63-character label (its CoordinatorEndpoint,
# https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go).
MAX_WORKLOAD_NAME = 22
# LWS: the worker StatefulSet `<name>-<group>` labels its pods `controller-revision-hash: <sts>-<hash>` (<= 63),
# so an LWS name is at most 52 - 1 - digits(replicas - 1): 50 for up to 10 replicas (kubernetes-sigs/lws#410).
MAX_LWS_NAME = 50
DNS_1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")
DNS_1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
RESERVED_CONTAINER_NAMES = ("pathways-rm", "pathways-proxy", "pathways-worker", "colocated-python-sidecar")
IMAGE = re.compile(r"^[a-z0-9][a-z0-9._\-/:]*[a-z0-9](@sha256:[0-9a-f]{64})?$")

Runtime = Literal["pathways", "jax"]
Mode = Literal["default", "colocated", "headless", "serving", "service"]
JOBSET_MODES = ("default", "colocated", "headless")
LWS_MODES = ("serving", "service")  # run on a LeaderWorkerSet (config/serving.py)


def check_quantity(value: str, kind: str, example: str) -> str:
    try:
        positive = parse_quantity(value) > 0
    except ValueError:
        positive = False
    if not positive:
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


# Keys that only one runtime reads, and why. A key the runtime does not read is refused when it differs from its
# default (never silently ignored); a default value, as a model dump writes it, is harmless and accepted.
RUNTIME_ONLY_FIELDS: dict[str, tuple[str, str]] = {
    "pathways": ("pathways", "the Pathways server settings apply to runtime 'pathways' only"),
    "container_name": ("pathways", "it names the user container beside the Pathways head; a jax workload's "
                       "container is always 'jax'"),
    "resources": ("pathways", "it sizes the user container in the Pathways head; size jax processes with "
                  "jax.cpu and jax.memory (a TPU process gets its whole VM)"),
    "gcs_fuse": ("pathways", "volumes are mounted into Pathways pods only; jax TPU pods use hostNetwork, which the "
                 "GCS FUSE CSI driver does not support (read the bucket from the program instead)"),
    "jax": ("jax", "the multi-controller JAX settings apply to runtime 'jax' only"),
}


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
    service_account_exists: bool = Field(default=False, description="serviceAccount already exists: not created")
    gcp_service_account: Optional[str] = Field(default=None, description="GCP service account the Kubernetes "
                                               "serviceAccount is bound to through Workload Identity")
    buckets: list[BucketAccess] = Field(default_factory=list, description="checkpoint/data buckets the code uses")
    termination_grace_period_seconds: Optional[int] = Field(default=None, ge=0, le=86400)
    privileged: bool = False
    # --- Pathways head/worker pod options (see config/pathways.py) ---
    container_name: str = Field(default="jax-tpu", description="name of the user container in the head pod")
    resources: ContainerResources = Field(default_factory=ContainerResources)
    image_pull_policy: Optional[ImagePullPolicy] = Field(
        default=None, description="every container; default IfNotPresent (all images are pinned)")
    gcs_fuse: list[GcsFuseVolume] = Field(default_factory=list)
    image_pull_secrets: list[str] = Field(default_factory=list, description="Secrets for private registries")
    # --- Pathways on a LeaderWorkerSet (mode serving / service; config/serving.py) ---
    serving: Optional[ServingSettings] = None
    service: Optional[ServiceSettings] = None

    @property
    def on_lws(self) -> bool:
        """Rendered as a LeaderWorkerSet (modes serving and service) instead of a JobSet."""
        return self.mode in LWS_MODES

    @model_validator(mode="wrap")
    @classmethod
    def _jobset_name_length(cls, data: Any, handler: Any) -> Any:
        """JobSet workloads' 22-character name limit, reported beside every other problem of the workload.

        The limit depends on the mode (a LeaderWorkerSet allows 50), which the `name` field check cannot see.
        """
        name = data.get("name") if isinstance(data, dict) else None
        mode = data.get("mode", "default") if isinstance(data, dict) else None
        length = len(name.strip()) if isinstance(name, str) else 0
        too_long = mode not in LWS_MODES and MAX_WORKLOAD_NAME < length <= MAX_LWS_NAME
        error = fail("name", f"is {length} characters; at most {MAX_WORKLOAD_NAME} are allowed (JobSet "
                     f"writes '<name>-pathways-head-0-0.<name>' into a 63-character label)") if too_long else None
        try:
            result = handler(data)
        except ValidationError as exc:
            if error is None:
                raise
            details: list[InitErrorDetails] = [{"type": PydanticCustomError(e["type"], e["msg"].replace("{", "{{").replace("}", "}}"),
                                                    e.get("ctx")),
                        "loc": e["loc"], "input": e.get("input")} for e in exc.errors(include_url=False)]
            details.append({"type": error, "loc": ("name",), "input": name})
            raise ValidationError.from_exception_data(exc.title, details) from None
        if error is not None:
            raise ValidationError.from_exception_data(cls.__name__, [{"type": error, "loc": ("name",),
                                                                      "input": name}])
        return result

    @model_validator(mode="after")
    def _mode_blocks(self) -> "WorkloadConfig":
        for block, mode in (("serving", "serving"), ("service", "service")):
            if getattr(self, block) is not None and self.mode != mode:
                raise fail(block, f"applies to mode '{mode}' only (this workload's mode is '{self.mode}')",
                           field=block)
        if self.mode == "serving" and self.serving is None:
            raise fail("serving", "is required for mode 'serving': at least the server's port, e.g. "
                       "serving: {port: 8000}", field="serving")
        if self.mode == "service" and self.service is None:
            raise fail("service", "is required for mode 'service': the clients, e.g. service: {clients: [alice, "
                       "bob]}", field="service")
        return self

    @field_validator("image_pull_secrets")
    @classmethod
    def _pull_secrets(cls, value: list[str]) -> list[str]:
        for name in value:
            if not DNS_1123_LABEL.match(name) or len(name) > 253:
                raise fail("image_pull_secrets", f"'{name}' is not a Secret name (lower-case letters, digits, '-')")
        return value

    @field_validator("service_account")
    @classmethod
    def _service_account(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        if "@" in value:
            raise fail("service_account", "is a GCP service-account email; serviceAccount names the Kubernetes "
                       "service account the pods run as (bound to the GCP one through Workload Identity)")
        if not DNS_1123_SUBDOMAIN.match(value) or len(value) > 253:
            raise fail("service_account", "is not a Kubernetes service account name (lower-case letters, digits, "
                       "'-' and '.')")
        return value

    @field_validator("gcp_service_account")
    @classmethod
    def _gcp_service_account(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not GSA_EMAIL.match(value):
            raise fail("gcp_service_account", "is not a user-managed GCP service-account email "
                       "(name@project.iam.gserviceaccount.com)")
        return value

    @field_validator("container_name")
    @classmethod
    def _container_name(cls, value: str) -> str:
        if not DNS_1123_LABEL.match(value) or len(value) > 63:
            raise fail("container_name", "is not a container name: lower-case letters, digits and '-', "
                       "at most 63 characters")
        if value in RESERVED_CONTAINER_NAMES:
            raise fail("container_name", f"is used by a Pathways container; not allowed: "
                       f"{', '.join(RESERVED_CONTAINER_NAMES)}")
        return value

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if len(value) > MAX_LWS_NAME:
            raise fail("name", f"is {len(value)} characters; at most {MAX_WORKLOAD_NAME} are allowed (JobSet writes "
                       f"'<name>-pathways-head-0-0.<name>' into a 63-character label), {MAX_LWS_NAME} in modes "
                       "serving/service (LeaderWorkerSet)")
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


def is_given(workload: WorkloadConfig, field: str) -> bool:
    """The field holds something other than its default (a model dump's defaults count as not given)."""
    return getattr(workload, field) != WorkloadConfig.model_fields[field].get_default(call_default_factory=True)


def runtime_field_problems(workload: WorkloadConfig, path: str) -> list[Problem]:
    """A problem for every key set (to other than its default) that the workload's runtime does not read."""
    fields = WorkloadConfig.model_fields
    return [Problem(f"{path}.{fields[field].alias or field}", f"is not read by runtime '{workload.runtime}': {hint}")
            for field, (runtime, hint) in RUNTIME_ONLY_FIELDS.items()
            if runtime != workload.runtime and is_given(workload, field)]
