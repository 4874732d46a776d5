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


class MaintenanceScope(str, Enum):
    """What a maintenance exclusion holds back."""

    NO_UPGRADES = "NO_UPGRADES"
    """No upgrades at all (at most 30 days; needs endTime)."""
    NO_MINOR_UPGRADES = "NO_MINOR_UPGRADES"
    """No minor upgrades of the control plane or nodes; patches still apply."""
    NO_MINOR_OR_NODE_UPGRADES = "NO_MINOR_OR_NODE_UPGRADES"
    """No minor upgrades and no node upgrades: keeps TPU slices from being upgraded under a release channel."""


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
    SERVING = "serving"
    """A LeaderWorkerSet: a Pathways head with the user's server plus a slice's workers per replica, and a Service."""
    SERVICE = "service"
    """A persistent Pathways backend on a LeaderWorkerSet; each named client gets its own proxy."""


class LeaderPlacement(str, Enum):
    """Where the head (LWS leader) of a serving/service workload runs."""

    TPU = "tpu"
    """On a TPU VM of its slice (Google's layout; any supported LWS release)."""
    CPU = "cpu"
    """On the CPU pool, with LeaderExcluded subgroups (LWS >= v0.6.0)."""


class LoadBalancer(str, Enum):
    """How the serving Service is exposed beyond ClusterIP."""

    INTERNAL = "internal"
    """A GKE internal passthrough Network Load Balancer (a VPC-internal address)."""


class ClusterDns(str, Enum):
    """Cluster DNS provider."""

    AUTO = "auto"
    """Cloud DNS (cluster scope) when the stack has a multi-host TPU slice, else GKE's default."""
    CLOUD_DNS = "cloud-dns"
    """Cloud DNS for GKE, cluster scope: DNS answered on every node, no in-cluster DNS server."""
    NODELOCAL_DNSCACHE = "nodelocal-dnscache"
    """kube-dns with the NodeLocal DNSCache add-on (a cache on every node)."""
    GKE_DEFAULT = "gke-default"
    """Send no DNS settings: GKE's default for the cluster version."""


class ImagePullPolicy(str, Enum):
    """Kubernetes imagePullPolicy of every container of a workload."""

    ALWAYS = "Always"
    IF_NOT_PRESENT = "IfNotPresent"
    NEVER = "Never"


class BucketAccessMode(str, Enum):
    """What a workload does with a declared bucket."""

    READ = "read"
    READ_WRITE = "readWrite"


# --- sections ------------------------------------------------------------------------------------


class NodeServiceAccount(TypedDict):
    """The GCP service account the nodes run as."""

    create: NotRequired[bool]
    """Create a dedicated service account `<cluster>-nodes` (logging, monitoring, image pulls, read-only storage;
    the buckets its host-network pods write are granted per bucket). Default: true."""
    email: NotRequired[pulumi.Input[str]]
    """Use this existing service account instead (name@project.iam.gserviceaccount.com)."""


class MaintenanceWindow(TypedDict):
    """A recurring maintenance window: GKE upgrades and repairs only inside it."""

    start_time: str
    """First window's start, RFC 3339 (e.g. 2026-12-05T02:00:00Z)."""
    end_time: str
    """First window's end, RFC 3339."""
    recurrence: NotRequired[str]
    """RFC 5545 RRULE. Default: "FREQ=WEEKLY;BYDAY=SA,SU"."""


class MaintenanceExclusion(TypedDict):
    """A period in which GKE does not upgrade what `scope` names."""

    name: str
    """Exclusion name (lower-case letters, digits and '-')."""
    start_time: str
    """Start, RFC 3339."""
    end_time: NotRequired[str]
    """End, RFC 3339; unset: until the cluster version's end of support."""
    scope: NotRequired[MaintenanceScope]
    """What is held back. Default: "NO_MINOR_OR_NODE_UPGRADES"."""


class Maintenance(TypedDict):
    """When GKE may upgrade the cluster and its nodes: the way to keep TPU slices from being upgraded while the
    cluster stays on a release channel (node autoUpgrade cannot be turned off there)."""

    window: NotRequired[MaintenanceWindow]
    """A recurring maintenance window."""
    exclusions: NotRequired[list[MaintenanceExclusion]]
    """Maintenance exclusions."""
class Nat(TypedDict):
    """Cloud NAT for private nodes (registry.k8s.io serves the JobSet/Kueue/LWS images)."""

    enabled: NotRequired[bool]
    """Create a Cloud Router + NAT for the cluster's region when privateNodes is true; false when the network
    already has NAT there. Default: true."""
    router: NotRequired[str]
    """Put the NAT on this existing Cloud Router instead of creating `<cluster>-router`."""


class AuthorizedNetwork(TypedDict):
    """A CIDR block allowed to reach the control plane's endpoint."""

    cidr_block: str
    """CIDR block, e.g. 203.0.113.0/24."""
    display_name: NotRequired[str]
    """A label for it."""


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
    maintenance: NotRequired[Maintenance]
    """Maintenance window and exclusions (created clusters only)."""
    project_number: NotRequired[str]
    """Number of the GCP project; needed when a grant names a Workload Identity principal (a pod without host
    networking, or a GCS FUSE volume, whose Kubernetes service account has no gcpServiceAccount)."""
    network_project: NotRequired[str]
    """Shared VPC host project of `network` (default: the project named in a network self link, else the
    cluster's). The webhook firewall, Cloud Router and NAT are created there."""
    nat: NotRequired[Nat]
    """Cloud NAT for private nodes. Default: a Router + NAT is created when privateNodes is true."""
    master_authorized_networks: NotRequired[list[AuthorizedNetwork]]
    """CIDR blocks allowed to reach the control plane (master authorized networks)."""
    dns: NotRequired[ClusterDns]
    """Cluster DNS provider (created clusters only). Default: "auto"."""


class CpuPool(TypedDict):
    """The CPU node pool that hosts the Pathways head and the JobSet / Kueue controllers."""

    name: NotRequired[str]
    """GKE node-pool name. Default: "cpu-np"."""
    create: NotRequired[bool]
    """Create the pool (true), or use the existing pool `name` of an adopted cluster (false; e.g. XPK's cpu-np).
    Default: true."""
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
    """Boot disk type; default: hyperdisk-balanced for Hyperdisk-only families (n4, c4, c4a, c4d, ...), else
    pd-balanced. Those families refuse pd-* types."""
    spot: NotRequired[bool]
    """Run the CPU nodes on spot VMs. Default: false."""
    image_streaming: NotRequired[bool]
    """GKE image streaming (GCFS): the head's containers start before their images are fully pulled. Default: true."""
    image_cache_disk: NotRequired[str]
    """Pinned disk image (projects/P/global/images/NAME) attached as a container-image-cache secondary boot disk."""
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
    """GKE image streaming (GCFS). Default: true."""
    image_cache_disk: NotRequired[str]
    """Pinned disk image (projects/P/global/images/NAME) attached as a container-image-cache secondary boot disk."""
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
    size_for_cluster: NotRequired[bool]
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""


class Kueue(TypedDict):
    """Kueue admission (queues, priority classes, queued provisioning)."""

    enabled: NotRequired[bool]
    """Install Kueue and submit workloads through its queue. Default: false."""
    version: NotRequired[str]
    """Pinned Kueue release (vMAJOR.MINOR.PATCH). Default: "v0.17.1"."""
    manifest: NotRequired[str]
    """Path of a vendored install manifest to use instead of the bundled one."""
    size_for_cluster: NotRequired[bool]
    """Controller CPU/memory from the stack's VM count (docs/at-scale.md); false keeps the manifest's. Default: true."""


class Lws(TypedDict):
    """The LeaderWorkerSet controller (installed only when a workload runs in mode serving or service)."""

    version: NotRequired[str]
    """Pinned LWS release (vMAJOR.MINOR.PATCH, >= v0.5.0). Default: "v0.10.0"."""
    manifest: NotRequired[str]
    """Path of a vendored install manifest to use instead of the release URL."""
    gate_image: NotRequired[str]
    """kubectl image of the Job that waits until the LWS webhook answers. Default: "registry.k8s.io/kubectl:v1.34.1"."""


class ServingPort(TypedDict):
    """One port of the user's server."""

    port: int
    """Port number (1-65535), not one of the Pathways servers' ports."""
    name: NotRequired[str]
    """Port name (IANA service name, at most 15 characters)."""


class ServingProbes(TypedDict):
    """Startup / readiness / liveness probes of the server container."""

    path: NotRequired[str]
    """HTTP path answering 200 when ready (e.g. /health); none: a TCP check."""
    port: NotRequired[int]
    """Probe port; default: the first serving port."""
    startup_seconds: NotRequired[int]
    """Time allowed for checkpoint loading before liveness applies (60-86400). Default: 3600."""
    period_seconds: NotRequired[int]
    """Probe period (1-300 s). Default: 10."""
    enabled: NotRequired[bool]
    """Probe the server at all. Default: true."""


class ServingSettings(TypedDict):
    """mode serving: the LeaderWorkerSet's groups and the Service in front of them."""

    port: NotRequired[int]
    """The server's port (or give ports)."""
    ports: NotRequired[list[ServingPort]]
    """Several named ports instead of port."""
    replicas: NotRequired[int]
    """Independent Pathways groups behind the Service (1-1000). Default: 1."""
    slices_per_replica: NotRequired[int]
    """TPU slices each group serves from (1-256). Default: 1."""
    max_surge: NotRequired[int]
    """Extra groups during a rolling update (each needs spare slices). Default: 0."""
    leader: NotRequired[LeaderPlacement]
    """Where the head runs. Default: "tpu"."""
    load_balancer: NotRequired[LoadBalancer]
    """Expose the Service through an internal load balancer."""
    probes: NotRequired[ServingProbes]
    """Probes of the server container."""


class ServiceSettings(TypedDict):
    """mode service: a persistent Pathways backend and one proxy per named client."""

    clients: list[str]
    """Client names; each gets an IFRT proxy Deployment and Service."""
    client_slices: NotRequired[int]
    """Slices each client's proxy asks the backend for (--virtual_slices). Default: 1."""
    leader: NotRequired[LeaderPlacement]
    """Where the resource manager runs. Default: "cpu"."""


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


class BucketAccess(TypedDict):
    """A checkpoint/data bucket a workload's code reads or writes."""

    bucket: str
    """Bucket name (without gs://)."""
    access: NotRequired[BucketAccessMode]
    """read or readWrite. Default: "readWrite"."""


class Bucket(TypedDict):
    """A bucket the stack knows about."""

    name: str
    """Bucket name (without gs://)."""
    create: NotRequired[bool]
    """Create it (uniform access, hierarchical namespace, temporary files expire; kept on destroy). Default: false."""
    location: NotRequired[str]
    """Created buckets: location. Default: the cluster's region."""
    project: NotRequired[str]
    """The bucket's project when not the stack's: the plan lists the grants to make instead of making them."""
    temporary_object_days: NotRequired[int]
    """Created buckets: objects under the workloads' gcsScratch paths are deleted after this many days. Default: 7."""


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
    """A Pathways or multi-controller JAX workload, run as a JobSet (or, in modes serving/service, a LeaderWorkerSet)."""

    name: str
    """JobSet name: a DNS-1035 label of at most 22 characters (50 for a LeaderWorkerSet)."""
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
    service_account: NotRequired[str]
    """Kubernetes service account of the pods; created in the namespace unless serviceAccountExists. Its
    Workload Identity applies only to pods without host networking (not Pathways or TPU JAX pods, which act as
    the node service account) and to GCS FUSE volumes."""
    service_account_exists: NotRequired[bool]
    """serviceAccount already exists in the namespace: it is not created. Default: false."""
    gcp_service_account: NotRequired[str]
    """GCP service account serviceAccount is bound to through Workload Identity (annotation + the
    roles/iam.workloadIdentityUser grant). Governs only pods without host networking and GCS FUSE volumes."""
    buckets: NotRequired[list[BucketAccess]]
    """Checkpoint/data buckets the workload's code uses; the identity its pods run as is granted access."""
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
    serving: NotRequired[ServingSettings]
    """mode serving: ports, replicas, probes, load balancer."""
    service: NotRequired[ServiceSettings]
    """mode service: the clients."""


class Observability(TypedDict):
    """Metrics, Console links and alerts."""

    managed_prometheus: NotRequired[bool]
    """GKE managed Prometheus with the metric packages the TPU and JobSet dashboards read. Default: true."""
    console_links: NotRequired[bool]
    """Output `consoleLinks` (cluster, TPU dashboards, each workload's JobSet page and logs). Default: true."""
    alerts: NotRequired[bool]
    """Cloud Monitoring alert policies per workload (stuck without ready workers; restarts). Default: false."""
    stuck_minutes: NotRequired[int]
    """Minutes a JobSet may have fewer ready than specified replicas before alerting (5-1440). Default: 20."""
    notification_channels: NotRequired[list[str]]
    """Notification channels of the alert policies (projects/P/notificationChannels/ID)."""


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
    buckets: NotRequired[list[Bucket]]
    """Buckets the stack creates, or that live in another project."""
    observability: NotRequired[Observability]
    """Metrics, Console links and alerts."""
    lws: NotRequired[Lws]
    """The LeaderWorkerSet controller (serving and service workloads)."""
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
