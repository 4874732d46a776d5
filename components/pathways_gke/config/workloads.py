"""`pathways-gke:workloads`: Pathways (head + workers) and multi-controller JAX JobSets, and Pathways serving
(`mode: serving` / `mode: service`, on a LeaderWorkerSet; their blocks live in serving.py)."""

from __future__ import annotations

import shlex
from typing import Annotated, Any, ClassVar, Literal, Optional, Union, cast

from pydantic import Discriminator, Field, Tag, TypeAdapter, ValidationError, field_validator, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from .ironwood import DynamicSlice
from ..errors import Problem
from ..pathways_facts import PATHWAYS_CONTAINERS
from .access import BucketAccess
from .base import Model, fail
from .pathways import ContainerResources, GcsFuseVolume, ImagePullPolicy, PathwaysSettings, Sidecar
from .checkpointing import WorkloadCheckpointing
from .restart import RestartSettings, check_exit_codes
from .serving import ServiceSettings, ServingSettings
from .types import (DNS_1035_LABEL, ContainerName, CpuQuantity, EnvVars, ImageRef, MemoryQuantity, SecretNames,
                    ServiceAccountEmail, ServiceAccountName)

__all__ = ["JaxSettings", "JaxWorkloadConfig", "PathwaysSettings", "PathwaysWorkloadConfig", "WorkloadBase",
           "WorkloadConfig", "parse_workload"]

# JobSet puts `<name>-pathways-head-0-0.<name>` into a 63-character label (its CoordinatorEndpoint,
# https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/controllers/jobset_controller.go).
MAX_WORKLOAD_NAME = 22
# LWS: the worker StatefulSet `<name>-<group>` labels its pods `controller-revision-hash: <sts>-<hash>` (<= 63),
# so an LWS name is at most 52 - 1 - digits(replicas - 1): 50 for up to 10 replicas (kubernetes-sigs/lws#410).
MAX_LWS_NAME = 50
RESERVED_CONTAINER_NAMES = PATHWAYS_CONTAINERS

Runtime = Literal["pathways", "jax"]
RUNTIMES: tuple[str, ...] = ("pathways", "jax")
Mode = Literal["default", "colocated", "headless", "serving", "service"]
JOBSET_MODES = ("default", "colocated", "headless")
LWS_MODES = ("serving", "service")  # run on a LeaderWorkerSet (config/serving.py)


class JaxSettings(Model):
    """Multi-controller JAX options.

    On TPU the process layout comes from the TPU pool (one process per TPU VM, one Job per slice);
    on the CPU pool (no tpuPool) it is set here.
    """

    processes: Optional[int] = Field(default=None, ge=1, le=4096)
    """CPU workloads: total number of JAX processes (pods), 1-4096."""
    slices: Optional[int] = Field(default=None, ge=1, le=1024)
    """CPU workloads: split the processes into this many Jobs like TPU slices (1-1024; processes must be a multiple of it)."""
    cpu: CpuQuantity = "1"
    """CPU workloads: CPU request per process. Default: "1"."""
    memory: MemoryQuantity = "4Gi"
    """CPU workloads: memory request and limit per process. Default: "4Gi"."""


# Why a key belongs to one runtime: the model of the other runtime refuses it with this reason (never a silent drop).
PATHWAYS_ONLY = {
    "mode": "the head placement modes (colocated, headless, serving, service) apply to runtime 'pathways' only",
    "pathways": "the Pathways server settings apply to runtime 'pathways' only",
    "containerName": "it names the user container beside the Pathways head; a jax workload's container is always "
                     "'jax'",
    "resources": "it sizes the user container in the Pathways head; size jax processes with jax.cpu and jax.memory "
                 "(a TPU process gets its whole VM)",
    "gcsFuse": "volumes are mounted into Pathways pods only; jax TPU pods use hostNetwork, which the GCS FUSE CSI "
               "driver does not support (read the bucket from the program instead)",
    "serving": "mode serving is a Pathways mode (a LeaderWorkerSet of Pathways heads and workers)",
    "service": "mode service is a Pathways mode (a persistent Pathways backend on a LeaderWorkerSet)",
    "sidecars": "sidecars join the Pathways head pod; a jax workload has no head (each process is its own pod, "
                "run helpers from the program instead)",
    "restartOnExitCodes": "it becomes a podFailurePolicy on the Pathways head Job; a jax workload's Jobs already "
                          "carry one (a disruption restarts the JobSet without spending maxRestarts) that a "
                          "FailJobSet rule on PodFailurePolicy would contradict",
}
JAX_ONLY = {"jax": "the multi-controller JAX settings apply to runtime 'jax' only",
            "parallelContainers": "Pathways runs one worker container per TPU VM (XPK turns parallel containers off "
                                  "for Pathways); parallel containers are a multi-controller JAX layout"}
# Keys PathwaysCluster acts on outside the workload's own objects (IAM grants, the Kubernetes service account):
# a workload component on its own cannot honour them, so it refuses them with this reason.
CLUSTER_WIRED = {
    "service_account_exists": "it tells PathwaysCluster not to create serviceAccount; a standalone workload "
                              "component creates no service account (create it beside the component)",
    "gcp_service_account": "PathwaysCluster binds serviceAccount to it through Workload Identity; a standalone "
                           "workload component makes no IAM bindings (bind it beside the component)",
    "buckets": "PathwaysCluster grants the pods' identity access to them; a standalone workload component makes "
               "no IAM grants (grant it beside the component)",
}


class WorkloadBase(Model):
    """What every workload has, whatever runs it: the image and program, env, identity, restarts, pod options."""

    name: str
    """JobSet name: a DNS-1035 label of at most 22 characters (50 for a LeaderWorkerSet)."""
    tpu_pool: Optional[str] = None
    """TPU pool group the workload runs on (required for pathways; none = CPU for jax)."""
    tpu_pools: Optional[list[str]] = Field(default=None, min_length=1)
    """Ordered fallback instead of tpuPool: the TPU pool groups Kueue may admit the workload to, first choice first
    (e.g. [reserved, queued]). The groups share one shape (generation, topology, machine type) and region; needs
    kueue.enabled (the ClusterQueue's flavors follow this order)."""
    image: Optional[ImageRef] = None
    """The user container's image, pinned to a tag other than latest or to a digest (may be an Output, e.g. an
    image built in the same program)."""
    command: Optional[Union[str, list[str]]] = None
    """The user program as an argument list (the stack file also accepts one shell string)."""
    args: list[str] = Field(default_factory=list)
    """Arguments of the user container: without command, the image's entrypoint gets them (Kubernetes `args`,
    e.g. MaxText's key=value settings); with command, they are appended to it as shell-quoted words."""
    max_restarts: int = Field(default=0, ge=0, le=1000)
    """JobSet failure-policy restarts (0-1000). Default: 0."""
    priority_class: Optional[str] = None
    """Kubernetes PriorityClass of the head and worker pods."""
    env: EnvVars = Field(default_factory=dict)
    """Environment variables of the user container (values may be Outputs)."""
    secret_env: EnvVars = Field(default_factory=dict)
    """Environment variables from secrets: ENV_VAR -> key of `secrets`."""
    service_account: Optional[ServiceAccountName] = None
    """Kubernetes service account of the pods; created in the namespace unless serviceAccountExists. Its
    Workload Identity applies only to pods without host networking (not Pathways or TPU JAX pods, which act as
    the node service account) and to GCS FUSE volumes."""
    service_account_exists: bool = False
    """serviceAccount already exists in the namespace: it is not created. Default: false."""
    gcp_service_account: Optional[ServiceAccountEmail] = None
    """GCP service account serviceAccount is bound to through Workload Identity (annotation + the
    roles/iam.workloadIdentityUser grant). Governs only pods without host networking and GCS FUSE volumes."""
    buckets: list[BucketAccess] = Field(default_factory=list)
    """Checkpoint/data buckets the workload's code uses; the identity its pods run as is granted access."""
    termination_grace_period_seconds: Optional[int] = Field(default=None, ge=0, le=86400)
    """Pod termination grace period (0-86400 s)."""
    privileged: bool = False
    """Run the user container privileged. Default: false."""
    image_pull_policy: Optional[ImagePullPolicy] = None
    """imagePullPolicy of every container; default IfNotPresent (all images are pinned)."""
    image_pull_secrets: SecretNames = Field(default_factory=list)
    """Kubernetes Secrets for private registries, on head and worker pods."""
    multi_tier_checkpointing: Optional[WorkloadCheckpointing] = None
    """The multi-tier checkpointing RAM disk mounted at mountPath in the TPU pods that write checkpoints (needs
    cluster.multiTierCheckpointing; docs/resilience.md)."""
    restart: RestartSettings = Field(default_factory=RestartSettings)
    """How the JobSet restarts after a failure: strategy (Recreate or BlockingRecreate) and perSlice (JobSet modes
    only; a LeaderWorkerSet restarts its group)."""
    dynamic_slice: Optional[DynamicSlice] = None
    """On a tpuPool with dynamicSlicing: the slice (topology) and how many (count) GKE's slice controller forms
    for this workload from the group's sub-blocks."""

    @property
    def on_lws(self) -> bool:
        """Rendered as a LeaderWorkerSet (modes serving and service) instead of a JobSet."""
        return False

    @property
    def pool_groups(self) -> list[str]:
        """Every TPU pool group the workload may run on, first choice first (none: the CPU pool)."""
        if self.tpu_pools:
            return list(self.tpu_pools)
        return [self.tpu_pool] if self.tpu_pool else []

    @property
    def first_pool(self) -> Optional[str]:
        """The group that gives the workload its shape: tpuPool, or the first of tpuPools."""
        groups = self.pool_groups
        return groups[0] if groups else None

    @model_validator(mode="after")
    def _one_way_to_name_pools(self) -> "WorkloadBase":
        if self.tpu_pools is not None and self.tpu_pool is not None:
            raise fail("tpu_pools", "cannot be used with tpuPool: give one group (tpuPool) or an ordered fallback "
                       "list (tpuPools), not both", field="tpuPools")
        if self.tpu_pools is not None and len(set(self.tpu_pools)) != len(self.tpu_pools):
            raise fail("tpu_pools", "names a group more than once; each group is one fallback step",
                       field="tpuPools")
        return self

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
            details: list[InitErrorDetails] = [{"type": PydanticCustomError(e["type"], e["msg"],
                                                    e.get("ctx")),
                        "loc": e["loc"], "input": e.get("input")} for e in exc.errors(include_url=False)]
            details.append({"type": error, "loc": ("name",), "input": name})
            raise ValidationError.from_exception_data(exc.title, details) from None
        if error is not None:
            raise ValidationError.from_exception_data(cls.__name__, [{"type": error, "loc": ("name",),
                                                                      "input": name}])
        return result

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if len(value) > MAX_LWS_NAME:
            raise fail("name", f"is {len(value)} characters; at most {MAX_WORKLOAD_NAME} are allowed (JobSet writes "
                       f"'<name>-pathways-head-0-0.<name>' into a 63-character label), {MAX_LWS_NAME} in modes "
                       "serving/service (LeaderWorkerSet)")
        if not DNS_1035_LABEL.match(value):
            raise fail("name", "must be lower-case letters, digits and '-', starting with a letter "
                       "(a DNS-1035 label)")
        return value

    @field_validator("command")
    @classmethod
    def _command(cls, value: Optional[Union[str, list[str]]]) -> Optional[Union[str, list[str]]]:
        if isinstance(value, str) and not value.strip():
            raise fail("command", "is empty")
        if isinstance(value, list) and not value:
            raise fail("command", "is an empty list")
        return value

    @model_validator(mode="after")
    def _args_after_command(self) -> "WorkloadBase":
        if self.args and isinstance(self.command, str) and "\n" in self.command.strip():
            raise fail("args", "cannot follow a multi-line command (a script has no last command line to append "
                       "them to); write them into the command", field="args")
        return self

    @property
    def command_text(self) -> Optional[str]:
        """The user's program as bash text: command, then args as shell-quoted words."""
        if self.command is None:
            return None
        text = self.command if isinstance(self.command, str) else shlex.join(self.command)
        return f"{text} {shlex.join(self.args)}" if self.args else text


class PathwaysWorkloadConfig(WorkloadBase):
    """`runtime: pathways`: a Pathways head (resource manager + proxy, with the user container) and a TPU pool
    group's workers, as a JobSet; in modes serving and service, as a LeaderWorkerSet."""

    refused_keys: ClassVar[dict[str, str]] = JAX_ONLY
    runtime: Literal["pathways"] = "pathways"
    """Pathways, or multi-controller JAX. Default: "pathways"."""
    mode: Mode = "default"
    """Where the Pathways head runs. Default: "default"."""
    pathways: PathwaysSettings = Field(default_factory=PathwaysSettings)
    """Pathways server options."""
    container_name: ContainerName = "jax-tpu"
    """Name of the user container in the head pod. Default: "jax-tpu"."""
    resources: ContainerResources = Field(default_factory=ContainerResources)
    """Requests and limits of the user container."""
    gcs_fuse: list[GcsFuseVolume] = Field(default_factory=list)
    """Cloud Storage buckets mounted into the user container (and optionally the workers)."""
    sidecars: list[Sidecar] = Field(default_factory=list)
    """Extra containers in the head pod (a serving leader, a service backend's leader, a training head), e.g.
    JetStream's HTTP front end beside the maxengine server."""
    serving: Optional[ServingSettings] = None
    """mode serving: ports, replicas, probes, load balancer."""
    service: Optional[ServiceSettings] = None
    """mode service: the clients."""
    restart_on_exit_codes: list[int] = Field(default_factory=list, max_length=255)
    """Exit codes of the user container after which the run restarts (JobSet maxRestarts); any other failure
    ends it at once: a podFailurePolicy on the head Job (FailJob on the other codes) and a FailJobSet rule on
    PodFailurePolicy, as Cluster Toolkit's --restart-on-exit-codes (never on the workers, whose pods restart
    OnFailure, which the Job API refuses with a podFailurePolicy). Modes default and colocated."""

    @field_validator("restart_on_exit_codes")
    @classmethod
    def _exit_codes(cls, value: list[int]) -> list[int]:
        return check_exit_codes(value)

    @property
    def on_lws(self) -> bool:
        return self.mode in LWS_MODES

    @model_validator(mode="after")
    def _mode_blocks(self) -> "PathwaysWorkloadConfig":
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

    @field_validator("container_name")
    @classmethod
    def _container_name(cls, value: str) -> str:
        if value in RESERVED_CONTAINER_NAMES:
            raise fail("container_name", f"is used by a Pathways container; not allowed: "
                       f"{', '.join(RESERVED_CONTAINER_NAMES)}")
        return value


class JaxWorkloadConfig(WorkloadBase):
    """`runtime: jax`: multi-controller JAX, the user's program on every TPU VM (one Job per slice) or on CPU
    processes of the CPU pool."""

    refused_keys: ClassVar[dict[str, str]] = PATHWAYS_ONLY
    runtime: Literal["jax"]
    """Multi-controller JAX: picks this model."""
    jax: JaxSettings = Field(default_factory=JaxSettings)
    """Multi-controller JAX options."""
    parallel_containers: Optional[int] = Field(default=None, ge=2, le=2)
    """tpu7x-standard-4t only: run two JAX processes per TPU VM, one container of 2 chips each (XPK's parallel
    containers), instead of one of 4."""


def _runtime_of(value: Any) -> Optional[str]:
    """The union member a workload is validated as: its `runtime` (absent means pathways)."""
    if isinstance(value, WorkloadBase):
        return f"runtime={value.runtime}"  # type: ignore[attr-defined]
    if not isinstance(value, dict):
        return "runtime=pathways"  # that model reports "must be a mapping"
    runtime = value.get("runtime", "pathways")
    return f"runtime={runtime}" if runtime in RUNTIMES else None


WorkloadConfig = Annotated[
    Union[Annotated[PathwaysWorkloadConfig, Tag("runtime=pathways")], Annotated[JaxWorkloadConfig, Tag("runtime=jax")]],
    Discriminator(_runtime_of, custom_error_type="union_tag",
                  custom_error_message=f"is not a runtime; allowed: {', '.join(map(repr, RUNTIMES))}",
                  custom_error_context={"field": "runtime"}),
]
WORKLOAD_DESCRIPTION = ("A Pathways or multi-controller JAX workload, run as a JobSet (or, in modes serving/service, "
                        "a LeaderWorkerSet).")
"""What a workload of either runtime is, for the schema: the runtimes' models describe themselves."""

WORKLOAD_MODELS = (PathwaysWorkloadConfig, JaxWorkloadConfig)
"""The members of WorkloadConfig, the default runtime's first."""
WORKLOAD: TypeAdapter[PathwaysWorkloadConfig | JaxWorkloadConfig] = TypeAdapter(cast(Any, WorkloadConfig))


def parse_workload(data: Any) -> PathwaysWorkloadConfig | JaxWorkloadConfig:
    """Validate one workload mapping into the model of its runtime (raises pydantic's ValidationError)."""
    return WORKLOAD.validate_python(data)


def cluster_wired_problems(workload: WorkloadBase, path: str) -> list[Problem]:
    """A standalone workload component's problem for each key only PathwaysCluster can honour."""
    fields = type(workload).model_fields
    return [Problem(f"{path}.{fields[field].alias or field}", f"is not read by a workload component on its own: "
                    f"{reason}") for field, reason in CLUSTER_WIRED.items() if is_given(workload, field)]


def without_cluster_wired(workload: WorkloadBase) -> set[str]:
    """The fields PathwaysCluster hands on to a workload component (the rest it honours itself)."""
    return set(type(workload).model_fields) - set(CLUSTER_WIRED)


def is_given(workload: WorkloadBase, field: str) -> bool:
    """The field holds something other than its default (a model dump's defaults count as not given)."""
    return getattr(workload, field) != type(workload).model_fields[field].get_default(call_default_factory=True)
