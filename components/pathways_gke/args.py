"""The typed arguments of the components: the surface other languages see.

Pulumi's component provider infers the package schema from these annotations
(pulumi.provider.experimental.analyzer), so this module stays within what it can read:
TypedDicts, Enums, list / dict[str, T], no Union, no Literal, and NO
`from __future__ import annotations` (the analyzer reads annotations without evaluating strings).
The docstring under each field becomes its schema description.

Graph-shaping values (names, TPU type, topology, slice count, ...) are plain: the caller must pass
known values, because they decide which resources exist. Values that only flow into properties (network,
subnetwork, node service-account email, labels, images, env values, reservation project, ...; the list is
`config.deferrable.STACK_FIELDS`) are `pulumi.Input`s: they may come from other resources of the program.

Validation is NOT done here: `stack_input(args)` turns these dicts into the stack-config mapping
that `config.parse_stack` validates (one model decides every rule). Field names mirror the
pydantic models field for field (tests/test_args.py keeps them from drifting apart).
"""

import math
from collections import abc
from enum import Enum
from types import UnionType
from typing import (Any, Mapping, NotRequired, Optional, TypedDict, Union, get_args, get_origin, get_type_hints,
                    is_typeddict)

import pulumi

from .config.deferrable import accepted_paths
from .errors import ConfigError, Problem


# --- closed sets ---------------------------------------------------------------------------------


class ReleaseChannel(str, Enum):
    """GKE release channel of the control plane and nodes."""

    RAPID = "RAPID"
    """Newest GKE versions first."""
    REGULAR = "REGULAR"
    """The default channel: versions a few weeks after RAPID."""
    STABLE = "STABLE"
    """Versions after REGULAR has proven them."""
    EXTENDED = "EXTENDED"
    """Extended support period (GKE Enterprise pricing)."""
    UNSPECIFIED = "UNSPECIFIED"
    """No channel: versions are managed by hand."""


class DiskType(str, Enum):
    """Boot disk type of a node pool."""

    PD_STANDARD = "pd-standard"
    PD_BALANCED = "pd-balanced"
    PD_SSD = "pd-ssd"
    HYPERDISK_BALANCED = "hyperdisk-balanced"


class Capacity(str, Enum):
    """How the TPU slices of a pool group are obtained."""

    ON_DEMAND = "on-demand"
    """On-demand VMs (quota permitting)."""
    SPOT = "spot"
    """Spot VMs: cheap, preemptible."""
    RESERVATION = "reservation"
    """A specific reservation (give `reservation`)."""
    FLEX_START = "flex-start"
    """Dynamic Workload Scheduler flex-start: the whole slice is provisioned from 0 nodes when needed."""
    QUEUED = "queued"
    """Queued provisioning through Kueue's ProvisioningRequest admission check (needs kueue.enabled)."""


class HostMaintenanceInterval(str, Enum):
    """When GKE may run host maintenance on TPU VMs."""

    AS_NEEDED = "AS_NEEDED"
    PERIODIC = "PERIODIC"


class Runtime(str, Enum):
    """How a workload runs its program."""

    PATHWAYS = "pathways"
    """Pathways: a head (resource manager + proxy) and workers on a TPU pool group."""
    JAX = "jax"
    """Multi-controller JAX: the user's program on every host (TPU multislice, or CPU processes)."""


class WorkloadMode(str, Enum):
    """Where the Pathways head runs (runtime pathways only)."""

    DEFAULT = "default"
    """Head on the CPU pool, with the user container."""
    COLOCATED = "colocated"
    """Head beside a worker on the TPU slice (lower latency for batch inference)."""
    HEADLESS = "headless"
    """Resource manager and proxy only, for notebooks and interactive clients."""


class ImagePullPolicy(str, Enum):
    """Kubernetes imagePullPolicy of every container of a workload."""

    ALWAYS = "Always"
    IF_NOT_PRESENT = "IfNotPresent"
    NEVER = "Never"


# --- sections ------------------------------------------------------------------------------------


class NodeServiceAccount(TypedDict):
    """The GCP service account the nodes run as."""

    create: NotRequired[bool]
    """Create a dedicated service account `<cluster>-nodes` with minimal roles. Default: true."""
    email: NotRequired[pulumi.Input[str]]
    """Use this existing service account instead (name@project.iam.gserviceaccount.com)."""


class Cluster(TypedDict):
    """The GKE cluster (created, or an existing one adopted)."""

    name: str
    """GKE cluster name: lower-case letters, digits and '-', starting with a letter, at most 40 characters."""
    location: str
    """Region (e.g. us-east5) or zone (e.g. us-east5-b) of the cluster."""
    create: NotRequired[bool]
    """Create the cluster (true) or adopt an existing one with this name and location (false). Default: true."""
    release_channel: NotRequired[ReleaseChannel]
    """GKE release channel. Default: "REGULAR"."""
    version: NotRequired[str]
    """Minimum control-plane version (e.g. 1.34 or 1.34.1-gke.1829001); unset lets the channel decide."""
    network: NotRequired[pulumi.Input[str]]
    """VPC network (name or self link); unset uses the project's default network. May be an Output (e.g. a
    `gcp.compute.Network`'s self_link)."""
    subnetwork: NotRequired[pulumi.Input[str]]
    """Subnetwork (name or self link) of the nodes."""
    private_nodes: NotRequired[bool]
    """Nodes get internal IP addresses only. Default: false."""
    master_ipv4_cidr_block: NotRequired[str]
    """Private clusters: the control plane's private /28. When set, a firewall rule `<name>-webhooks` lets the
    control plane reach the JobSet/Kueue admission webhooks on tcp:9443."""
    deletion_protection: NotRequired[bool]
    """GKE-side deletion protection of the cluster. Default: true."""
    protect: NotRequired[bool]
    """Pulumi `protect` on the infrastructure (cluster, node pools, node service account, namespace, JobSet CRD),
    never on JobSets; the component's own `protect` option does the same. Default: false."""
    labels: NotRequired[dict[str, pulumi.Input[str]]]
    """GCE labels on the cluster (lower-case keys and values; values may be Outputs)."""
    node_service_account: NotRequired[NodeServiceAccount]
    """The service account the nodes run as. Default: a dedicated one is created."""


class CpuPool(TypedDict):
    """The CPU node pool that hosts the Pathways head and the JobSet / Kueue controllers."""

    name: NotRequired[str]
    """GKE node-pool name. Default: "cpu-np"."""
    machine_type: NotRequired[str]
    """A CPU machine type. Default: "n2-standard-64"."""
    min_nodes: NotRequired[int]
    """Autoscaling minimum (0-1000). Default: 1."""
    max_nodes: NotRequired[int]
    """Autoscaling maximum (1-1000, at least minNodes). Default: 4."""
    zone: NotRequired[str]
    """Zone of the pool; default: the zone of the first TPU pool (required for a regional cluster without TPU pools)."""
    disk_size_gb: NotRequired[int]
    """Boot disk size in GB (10-65536). Default: 200."""
    disk_type: NotRequired[DiskType]
    """Boot disk type. Default: "pd-balanced"."""
    spot: NotRequired[bool]
    """Run the CPU nodes on spot VMs. Default: false."""
    labels: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra Kubernetes node labels (values may be Outputs)."""


class Reservation(TypedDict):
    """A specific reservation, optionally a block / sub-block, possibly shared from another project."""

    name: str
    """Reservation name."""
    project: NotRequired[pulumi.Input[str]]
    """Project that owns a shared reservation; default: the stack's project."""
    block: NotRequired[str]
    """Reservation block."""
    sub_block: NotRequired[str]
    """Sub-block of `block`."""


class TpuPool(TypedDict):
    """One TPU pool group: one GKE node pool per slice, named <cluster>-<group>-<i>."""

    name: str
    """Group name (node label pathways-gke/tpu-group): lower-case letters, digits and '-', at most 20 characters."""
    type: str
    """TPU generation (v4, v5e, v5p, v6e, tpu7x) or a shorthand that implies the topology, e.g. v6e-16."""
    topology: NotRequired[str]
    """Slice topology, e.g. 4x4 (v5e/v6e) or 2x2x2 (v4/v5p/tpu7x); implied by a shorthand type."""
    slices: NotRequired[int]
    """Number of slices, one node pool each (1-256). Default: 1."""
    zone: str
    """Zone of the slices, in the cluster's region."""
    capacity: NotRequired[Capacity]
    """How the slices are obtained. Default: "on-demand"."""
    reservation: NotRequired[Reservation]
    """The reservation to consume (capacity reservation only)."""
    max_run_duration: NotRequired[str]
    """flex-start only: maximum run time of a node, e.g. 24h (at most 7d)."""
    autoscaling: NotRequired[bool]
    """Scale each slice between 0 and its VM count (always on for flex-start and queued)."""
    machine_type: NotRequired[str]
    """TPU machine type; default: the catalog's machine for the type and topology."""
    network_profile: NotRequired[bool]
    """Use the accelerator network profile (v6e and tpu7x)."""
    disk_size_gb: NotRequired[int]
    """Boot disk size in GB (10-65536); GKE's default when unset."""
    disk_type: NotRequired[DiskType]
    """Boot disk type; GKE's default when unset."""
    image_streaming: NotRequired[bool]
    """GKE image streaming (GCFS). Default: false."""
    auto_upgrade: NotRequired[bool]
    """GKE node auto-upgrade. Default: true."""
    max_pods_per_node: NotRequired[int]
    """Maximum pods per node (8-256); GKE's default when unset."""
    host_maintenance_interval: NotRequired[HostMaintenanceInterval]
    """Host maintenance interval of the TPU VMs. Default: "AS_NEEDED"."""
    protect: NotRequired[bool]
    """Pulumi `protect` on this group's node pools; default: cluster.protect."""
    labels: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra Kubernetes node labels (values may be Outputs)."""


class JobSet(TypedDict):
    """The JobSet controller installed into the cluster."""

    version: NotRequired[str]
    """Pinned JobSet release (vMAJOR.MINOR.PATCH). Default: "v0.10.1"."""
    manifest: NotRequired[str]
    """Path of a vendored install manifest to use instead of the bundled one."""


class Kueue(TypedDict):
    """Kueue admission (queues, priority classes, queued provisioning)."""

    enabled: NotRequired[bool]
    """Install Kueue and submit workloads through its queue. Default: false."""
    version: NotRequired[str]
    """Pinned Kueue release (vMAJOR.MINOR.PATCH). Default: "v0.17.1"."""
    manifest: NotRequired[str]
    """Path of a vendored install manifest to use instead of the bundled one."""


class PathwaysImages(TypedDict):
    """Custom images per Pathways component (used verbatim; must be pinned; may be Outputs)."""

    server: NotRequired[pulumi.Input[str]]
    """Resource manager image (pathways-rm)."""
    proxy: NotRequired[pulumi.Input[str]]
    """IFRT proxy image (pathways-proxy)."""
    worker: NotRequired[pulumi.Input[str]]
    """pathways-worker image; default: the server image."""
    colocated_python: NotRequired[pulumi.Input[str]]
    """Colocated-python sidecar image; setting it adds the sidecar to every worker pod."""


class PathwaysFlags(TypedDict):
    """Extra server flags per component ('--name=value', one item per flag), after the managed ones."""

    server: NotRequired[list[str]]
    """Extra resource-manager flags."""
    proxy: NotRequired[list[str]]
    """Extra IFRT proxy flags."""
    worker: NotRequired[list[str]]
    """Extra worker flags."""


class PathwaysEnv(TypedDict):
    """Extra environment variables per component, after the managed ones."""

    server: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra resource-manager environment."""
    proxy: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra IFRT proxy environment."""
    worker: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra worker environment."""


class ContainerResources(TypedDict):
    """Requests and limits of the user container; giving one half replaces that half of the default."""

    requests: NotRequired[dict[str, str]]
    """Resource requests (quantities). Default: cpu 2, memory 8Gi."""
    limits: NotRequired[dict[str, str]]
    """Resource limits (quantities). Default: cpu 24, memory 100G."""


class GcsFuseVolume(TypedDict):
    """A Cloud Storage bucket mounted through the GKE GCS FUSE CSI driver (needs Workload Identity)."""

    name: str
    """Volume name (DNS label, not 'shared-tmp')."""
    bucket: str
    """Bucket name, without gs://."""
    mount_path: str
    """Absolute mount path other than / and /tmp."""
    read_only: NotRequired[bool]
    """Mount read-only. Default: false."""
    mount_options: NotRequired[list[str]]
    """gcsfuse mount options, e.g. implicit-dirs, only-dir=ckpt."""
    workers: NotRequired[bool]
    """Also mount into every pathways-worker container. Default: false."""


class PathwaysSettings(TypedDict):
    """Pathways server options."""

    version: NotRequired[str]
    """Pathways image tag, e.g. jax-0.9.2 ('latest' is refused)."""
    gcs_scratch: NotRequired[pulumi.Input[str]]
    """GCS location for Pathways scratch data (gs://bucket/path)."""
    elastic_slices: NotRequired[int]
    """Number of slices that may be lost without failing the job (elastic training). Default: 0."""
    max_slice_restarts: NotRequired[int]
    """Restarts allowed per slice (1-100000). Default: 1."""
    images: NotRequired[PathwaysImages]
    """Custom images per Pathways component."""
    flags: NotRequired[PathwaysFlags]
    """Extra server flags per component."""
    env: NotRequired[PathwaysEnv]
    """Extra environment variables per component."""
    metrics: NotRequired[bool]
    """Enable metrics collection on every Pathways server. Default: false."""


class JaxSettings(TypedDict):
    """Multi-controller JAX options."""

    processes: NotRequired[int]
    """CPU workloads: total number of JAX processes (pods), 1-4096."""
    slices: NotRequired[int]
    """CPU workloads: split the processes into this many Jobs like TPU slices (1-1024; processes must be a multiple of it)."""
    cpu: NotRequired[str]
    """CPU workloads: CPU request per process. Default: "1"."""
    memory: NotRequired[str]
    """CPU workloads: memory request and limit per process. Default: "4Gi"."""


class Workload(TypedDict):
    """A Pathways or multi-controller JAX workload, run as a JobSet."""

    name: str
    """JobSet name: a DNS-1035 label of at most 22 characters."""
    runtime: NotRequired[Runtime]
    """Pathways, or multi-controller JAX. Default: "pathways"."""
    tpu_pool: NotRequired[str]
    """TPU pool group the workload runs on (required for pathways; none = CPU for jax)."""
    mode: NotRequired[WorkloadMode]
    """Where the Pathways head runs. Default: "default"."""
    image: NotRequired[pulumi.Input[str]]
    """The user container's image, pinned to a tag other than latest or to a digest (may be an Output, e.g. an
    image built in the same program)."""
    command: NotRequired[list[str]]
    """The user program as an argument list (the stack file also accepts one shell string)."""
    pathways: NotRequired[PathwaysSettings]
    """Pathways server options."""
    jax: NotRequired[JaxSettings]
    """Multi-controller JAX options."""
    max_restarts: NotRequired[int]
    """JobSet failure-policy restarts (0-1000). Default: 0."""
    priority_class: NotRequired[str]
    """Kubernetes PriorityClass of the head and worker pods."""
    env: NotRequired[dict[str, pulumi.Input[str]]]
    """Environment variables of the user container (values may be Outputs)."""
    secret_env: NotRequired[dict[str, str]]
    """Environment variables from secrets: ENV_VAR -> key of `secrets`."""
    service_account: NotRequired[pulumi.Input[str]]
    """Kubernetes service account of the pods (Workload Identity)."""
    termination_grace_period_seconds: NotRequired[int]
    """Pod termination grace period (0-86400 s)."""
    privileged: NotRequired[bool]
    """Run the user container privileged. Default: false."""
    container_name: NotRequired[str]
    """Name of the user container in the head pod. Default: "jax-tpu"."""
    resources: NotRequired[ContainerResources]
    """Requests and limits of the user container."""
    image_pull_policy: NotRequired[ImagePullPolicy]
    """imagePullPolicy of every container; default IfNotPresent (all images are pinned)."""
    gcs_fuse: NotRequired[list[GcsFuseVolume]]
    """Cloud Storage buckets mounted into the user container (and optionally the workers)."""
    image_pull_secrets: NotRequired[list[str]]
    """Kubernetes Secrets for private registries, on head and worker pods."""


class PathwaysClusterArgs(TypedDict):
    """Arguments of PathwaysCluster: the stack config contract, section by section."""

    project: str
    """GCP project id (the stack file's gcp:project)."""
    cluster: Cluster
    """The GKE cluster."""
    cpu_pool: NotRequired[CpuPool]
    """The CPU pool for the Pathways head and controllers."""
    tpu_pools: NotRequired[list[TpuPool]]
    """TPU pool groups, one node pool per slice."""
    jobset: NotRequired[JobSet]
    """The JobSet controller."""
    kueue: NotRequired[Kueue]
    """Kueue admission."""
    workloads: NotRequired[list[Workload]]
    """Workloads run on the cluster."""
    namespace: NotRequired[str]
    """Kubernetes namespace of the workloads. Default: "default"."""
    secrets: NotRequired[pulumi.Input[Mapping[str, pulumi.Input[str]]]]
    """Secret values by name (referenced by workloads' secretEnv); the names must be known, values may be secrets."""


class TpuPoolFacts(TypedDict):
    """What a workload needs to know about a TPU pool group (keys as on the wire)."""

    name: str
    """Group name (node label pathways-gke/tpu-group)."""
    type: str
    """TPU generation."""
    topology: str
    """Slice topology."""
    slices: int
    """Number of slices."""
    zone: str
    """Zone of the slices."""
    capacity: str
    """Capacity kind (on-demand, spot, reservation, flex-start, queued)."""
    machineType: str
    """TPU machine type."""
    acceleratorType: str
    """GKE node label cloud.google.com/gke-tpu-accelerator."""
    vmsPerSlice: int
    """TPU VMs (nodes) per slice."""
    chipsPerVm: int
    """TPU chips per VM."""
    nodePoolNames: list[str]
    """GKE node-pool names, one per slice."""
    reservation: NotRequired[str]
    """Reservation consumed (capacity reservation)."""
    placementPolicy: NotRequired[str]
    """tpu7x workload policy name, if any."""


# --- args -> stack config mapping ----------------------------------------------------------------

# top-level arg -> key of the stack-config mapping `parse_stack` reads
_STACK_KEYS = {"project": "gcp:project", "cpu_pool": "cpuPool", "tpu_pools": "tpuPools"}
SECRET_NAME_PLACEHOLDER = "<secret>"


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def stack_input(args: Mapping[str, Any], deferred: Any = None) -> dict[str, Any]:
    """PathwaysClusterArgs (Python snake_case, or the provider's mapped inputs) -> `parse_stack` input.

    Keys become the stack file's camelCase names (so errors name the stack-config paths), Enum
    members their values, integral floats ints where the field is an int (cross-language numbers
    arrive as floats). Secret VALUES never enter validation: only their names do. An Output at a path
    that accepts one is handed to `deferred` (a `pathways_gke.deferred.Deferred`), which gives a stand-in;
    raises ConfigError for Outputs anywhere else (those values decide the resource graph).
    """
    problems: list[Problem] = []
    if not isinstance(args, Mapping):
        raise ConfigError([Problem("args", "must be a mapping of PathwaysClusterArgs", type(args).__name__)])
    hints = field_types(PathwaysClusterArgs)
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key == "secrets":
            out["secrets"] = _secret_names(value, problems)
            continue
        if ":" in key:  # already a stack-config key (gcp:project, pathways-gke:cluster)
            out[key] = _convert(value, None, key.split(":", 1)[1], problems, deferred)
            continue
        field = _field_of(hints, key)
        name = field or key
        target = _STACK_KEYS.get(name, camel(name))
        out[target] = _convert(value, hints.get(name), target, problems, deferred)
    if problems:
        raise ConfigError(problems)
    return out


def _secret_names(value: Any, problems: list[Problem]) -> Any:
    if value is None:
        return {}
    if isinstance(value, pulumi.Output):
        problems.append(Problem("secrets", "must be a map whose keys are known when the component is created "
                                "(the values may be secrets or outputs); a whole-map Output was given"))
        return {}
    if not isinstance(value, Mapping):
        return value  # parse_stack reports the wrong type
    return {str(k): SECRET_NAME_PLACEHOLDER for k in value}


def field_types(typed_dict: type) -> dict[str, Any]:
    """Field name -> type of a TypedDict (NotRequired dropped; pulumi.Input's forward ref resolved)."""
    from pulumi.output import T

    return get_type_hints(typed_dict, localns={"Output": pulumi.Output, "T": T})


def _field_of(hints: Mapping[str, Any], key: str) -> Optional[str]:
    """The python field a key names: its snake_case name, or its camelCase schema name."""
    if key in hints:
        return key
    for name in hints:
        if camel(name) == key:
            return name
    return None


def _unwrap(annotation: Any) -> Any:
    """Optional[T] -> T. (get_type_hints already drops NotRequired; Input only wraps `secrets`.)"""
    if get_origin(annotation) is Union or get_origin(annotation) is UnionType:
        members = [a for a in get_args(annotation) if a is not type(None)]
        return members[0] if len(members) == 1 else Any
    return annotation


def _convert(value: Any, annotation: Any, path: str, problems: list[Problem], deferred: Any = None) -> Any:
    if isinstance(value, pulumi.Output):
        if deferred is not None and deferred.accepts(path):
            return deferred.take(path, value)
        problems.append(Problem(path, "must be a plain value known when the component is created: it shapes "
                                "the resource graph (which resources exist and their names), so it cannot wait "
                                f"for another resource; an Output was given. Outputs are accepted for: "
                                f"{accepted_paths()}"))
        return None
    if isinstance(value, Enum):
        return value.value
    kind = _unwrap(annotation)
    if kind is int and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    origin, params = get_origin(kind), get_args(kind)
    if isinstance(value, Mapping):
        if is_typeddict(kind):
            hints = field_types(kind)
            converted = {}
            for key, item in value.items():
                field = _field_of(hints, str(key))
                target = camel(field) if field else str(key)
                converted[target] = _convert(item, hints.get(field) if field else None, f"{path}.{target}",
                                             problems, deferred)
            return converted
        item_kind = params[1] if origin in (dict, abc.Mapping) and len(params) == 2 else None
        return {k: _convert(v, item_kind, f"{path}.{k}", problems, deferred) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        item_kind = params[0] if origin in (list, abc.Sequence) and params else None
        return [_convert(v, item_kind, f"{path}[{i}]", problems, deferred) for i, v in enumerate(value)]
    return value
