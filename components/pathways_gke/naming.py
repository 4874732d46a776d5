"""Every name and label we put on the cloud or the cluster, decided in one place.

Resource names become URNs and GKE/Kubernetes object names: they are public API.
Changing one here needs an alias on the resource (see docs/components.md).
"""

from __future__ import annotations

import hashlib

# Kubernetes node labels
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"  # set by GKE on every node
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"  # set by GKE on TPU nodes
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"  # set by GKE on TPU nodes
TPU_GROUP_LABEL = "pathways-gke/tpu-group"  # ours: which pool group a TPU node belongs to
ROLE_LABEL = "pathways-gke/role"  # ours: "head" on the CPU pool, "tpu" on slices
HEAD_ROLE = "head"  # the ROLE_LABEL (and GCE role label) value of the CPU pool's nodes
PLACEMENT_POLICY_LABEL = "cloud.google.com/placement-policy-name"  # tpu7x workload policy
QUEUED_LABEL = "cloud.google.com/gke-queued"  # GKE labels and taints queued-provisioning nodes with it
DRA_NETWORK_LABEL = "cloud.google.com/gke-networking-dra-driver"

# Node labels pathways-gke sets on node pools: a user label with one of these keys is refused (the workloads,
# Kueue's flavors and GKE's queued provisioning select on them), and so is any key under our own prefix.
MANAGED_NODE_LABELS = (ROLE_LABEL, TPU_GROUP_LABEL, QUEUED_LABEL, DRA_NETWORK_LABEL)
LABEL_PREFIX = "pathways-gke/"  # every Kubernetes label key pathways-gke defines starts with it
# GCE resource labels pathways-gke sets on the cluster / node pools.
MANAGED_BY_GCE_LABEL = "managed-by"
PRODUCT = "pathways-gke"  # the value of every managed-by label we set, Kubernetes or GCE
# The Kubernetes objects pathways-gke creates itself (namespaces, queues, priority classes, gates) carry this label.
MANAGED_BY_LABELS = {"app.kubernetes.io/managed-by": PRODUCT}
MANAGED_BY_GCE_LABELS = {MANAGED_BY_GCE_LABEL: PRODUCT}
# The one Kueue LocalQueue the stack creates in the workload namespace; every queued workload names it.
LOCAL_QUEUE_NAME = "pathways-queue"
ROLE_GCE_LABEL = "pathways-gke-role"
GROUP_GCE_LABEL = "pathways-gke-group"
MANAGED_GCE_LABELS = (MANAGED_BY_GCE_LABEL, ROLE_GCE_LABEL, GROUP_GCE_LABEL)

WORKLOAD_LABEL = "pathways-gke/workload"  # ours: on JobSets and their pods, the workload name
RUNTIME_LABEL = "pathways-gke/runtime"  # ours: on JobSets, "pathways" or "jax"
# `pathways-gke suspend` of a LeaderWorkerSet (which has no suspend field) scales it to 0 groups and records the
# count it had here; `resume` scales back to it
SUSPENDED_REPLICAS_ANNOTATION = "pathways-gke/suspended-replicas"

# JobSet (labels/annotations the JobSet controller stamps on every pod;
# https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/api/jobset/v1alpha2/jobset_types.go)
JOBSET_NAME_KEY = "jobset.sigs.k8s.io/jobset-name"
REPLICATED_JOB_NAME_KEY = "jobset.sigs.k8s.io/replicatedjob-name"
REPLICATED_JOB_REPLICAS_KEY = "jobset.sigs.k8s.io/replicatedjob-replicas"
JOB_INDEX_KEY = "jobset.sigs.k8s.io/job-index"
COORDINATOR_KEY = "jobset.sigs.k8s.io/coordinator"
EXCLUSIVE_TOPOLOGY_ANNOTATION = "alpha.jobset.sigs.k8s.io/exclusive-topology"
# set by the Job controller on pods of an Indexed Job
COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"

# Kubernetes taint / resource
TPU_RESOURCE = "google.com/tpu"
TPU_TAINT = {"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}

# Kueue
KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta2"
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"


XPK_SLICE_GROUP = "np"
"""XPK names the slice pools of a cluster `<cluster>-np-<i>` and treats every pool with that prefix as its own
(xpk v1.16.0 src/xpk/core/nodepool.py, get_desired_node_pool_names; `cluster create` re-creates or deletes them)."""
SLICE_TAINT_EFFECT = "NO_SCHEDULE"


def slice_group_taint(group: str) -> dict[str, str]:
    """The taint on the slices a stack creates on an adopted cluster: pathways-gke/tpu-group=<group>:NoSchedule.
    Another scheduler's pods (XPK's queue selects slices by accelerator and topology only) cannot land on them."""
    return {"key": TPU_GROUP_LABEL, "value": group, "effect": SLICE_TAINT_EFFECT}


def tpu_node_pool_name(cluster: str, group: str, index: int) -> str:
    """GKE node-pool name of slice `index` of a TPU pool group."""
    return f"{cluster}-{group}-{index}"


def workload_policy_name(cluster: str, group: str) -> str:
    """HIGH_THROUGHPUT workload policy used by tpu7x multi-host pools of one group."""
    return f"{cluster}-{group}-wp"


def workload_secret_name(workload: str) -> str:
    """Kubernetes Secret holding a workload's secretEnv values."""
    return f"{workload}-env"


def node_service_account_id(cluster: str, location: str) -> str:
    """account_id of the dedicated node service account: `<cluster>-nodes-<6 hex>` within IAM's 6-30 characters.

    Account ids are unique per project, so the suffix hashes (cluster, location): two clusters of the same
    name in two regions of one project get two accounts (https://cloud.google.com/iam/docs/service-accounts-create).
    """
    return f"{cluster[:17].rstrip('-')}-nodes-{location_suffix(cluster, location)}"


def location_suffix(cluster: str, location: str) -> str:
    """6 hex of (cluster, location), the suffix that keeps a fixed cloud name unique per location."""
    return hashlib.sha256(f"{cluster}/{location}".encode()).hexdigest()[:6]


def webhook_firewall_name(cluster: str, location: str) -> str:
    """`<cluster>-webhooks-<6 hex>`: firewall rules are global per project, so the suffix hashes (cluster,
    location) as the node service account's does; at most 40 + 16 characters of Compute Engine's 63."""
    return f"{cluster}-webhooks-{location_suffix(cluster, location)}"


def router_name(cluster: str, location: str) -> str:
    """`<cluster>-router-<6 hex>`: routers are per project and region, and two zonal clusters of one name can
    share a region."""
    return f"{cluster}-router-{location_suffix(cluster, location)}"


def nat_name(cluster: str, location: str) -> str:
    return f"{cluster}-nat-{location_suffix(cluster, location)}"


# --- Pathways workloads ----------------------------------------------------------------------------------
# JobSet / Kubernetes names and labels a Pathways JobSet carries. The JobSet controller derives Job, pod and
# host names from these (JobSet's CoordinatorEndpoint, pkg/controllers/jobset_controller.go); pathways-gke never
# renames them.

PATHWAYS_HEAD_JOB = "pathways-head"
PATHWAYS_WORKER_JOB = "worker"
JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"
HOSTNAME_LABEL = "kubernetes.io/hostname"
GCS_FUSE_ANNOTATION = "gke-gcsfuse/volumes"
HEAD_POD_LABEL = "pathways-gke/head"  # ours: "true" on head pods only (their per-node anti-affinity selects it)
SPOT_LABEL = "cloud.google.com/gke-spot"
FLEX_START_LABEL = "cloud.google.com/gke-flex-start"
PROXY_PORT = 29000
# XLA's IFRT proxy client and server use insecure gRPC credentials instead of ALTS when this is exactly "true"
# (openxla/xla xla/python/ifrt_proxy/common/grpc_credentials_possibly_insecure_wrapper.cc); set on pod-network
# proxies and their clients (render/serving_lws.py).
IFRT_PROXY_INSECURE_ENV = "IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS"
# The Pathways servers' ports (resource manager, worker; as XPK and the PathwaysJob operator set them). A serving
# port must not reuse them.
RM_PORTS = (29001, 29002)
WORKER_PORTS = (29005, 29006, 8471, 8080)
PATHWAYS_PORTS = (PROXY_PORT, *RM_PORTS, *WORKER_PORTS)


def pathways_head_host(jobset: str) -> str:
    """Namespace-relative host name of the head pod: `<js>-pathways-head-0-0.<js>` (the coordinator label)."""
    return f"{jobset}-{PATHWAYS_HEAD_JOB}-0-0.{jobset}"


def pathways_head_job(jobset: str) -> str:
    """Name of the head's child Job (`<js>-pathways-head-0`)."""
    return f"{jobset}-{PATHWAYS_HEAD_JOB}-0"


def worker_job(jobset: str, slice_index: int) -> str:
    return f"{jobset}-{PATHWAYS_WORKER_JOB}-{slice_index}"


def worker_pod_hostname(jobset: str, slice_index: int, vm_index: int) -> str:
    return f"{worker_job(jobset, slice_index)}-{vm_index}"


# Cluster services (JobSet, Kueue): names of the cluster objects we create (docs/jobset-and-kueue.md)
JOBSET_NAMESPACE = "jobset-system"  # fixed by the JobSet release manifest
KUEUE_NAMESPACE = "kueue-system"  # fixed by the Kueue release manifest
JOBSET_CRD = "jobsets.jobset.x-k8s.io"
SERVICES_CONFIGMAP = "pathways-gke-services"  # readiness marker: created after the installs are awaited
KUEUE_CLUSTER_QUEUE = "pathways-cluster-queue"
KUEUE_CPU_FLAVOR = "pathways-cpu"
KUEUE_PROVISIONING = "pathways-queued-provisioning"  # ProvisioningRequestConfig and AdmissionCheck
KUEUE_SLICE_TOPOLOGY = "pathways-dynamic-slicing"  # the Kueue Topology of tpu7x dynamic slicing
KUEUE_SLICE_CHECK = "pathways-dynamic-slicing"  # its AdmissionCheck (controller accelerator.gke.io/slice)


def kueue_tpu_flavor(group: str) -> str:
    """ResourceFlavor of one TPU pool group."""
    return f"pathways-tpu-{group}"


# LeaderWorkerSet (Pathways serving; kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go)
LWS_NAMESPACE = "lws-system"  # fixed by the LWS release manifest
LWS_CRD = "leaderworkersets.leaderworkerset.x-k8s.io"
LWS_API_VERSION = "leaderworkerset.x-k8s.io/v1"
LWS_NAME_KEY = "leaderworkerset.sigs.k8s.io/name"  # label LWS puts on every group pod
LWS_WORKER_INDEX_KEY = "leaderworkerset.sigs.k8s.io/worker-index"  # "0" on leaders
LWS_EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/exclusive-topology"
LWS_SUBGROUP_EXCLUSIVE_TOPOLOGY = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
# On a Kueue-managed LeaderWorkerSet: a digest of what Kueue freezes (group size, each template's pod shape). It is
# in the LWS's replaceOnChanges, so a change Kueue refuses in place (an appended container too) replaces the LWS.
KUEUE_FROZEN_SHAPE_ANNOTATION = "pathways-gke/kueue-frozen-shape"
LWS_GATE = "pathways-gke-lws-gate"  # ServiceAccount, Role, RoleBinding, ConfigMap and Job of the webhook gate
SAFE_TO_EVICT_ANNOTATION = "cluster-autoscaler.kubernetes.io/safe-to-evict"
CLIENT_LABEL = "pathways-gke/client"  # ours: on a service-mode client's proxy
INTERNAL_LB_ANNOTATION = "networking.gke.io/load-balancer-type"


def serving_service_name(workload: str) -> str:
    """The user-facing Service of a serving workload (LWS itself owns the headless Service `<name>`)."""
    return f"{workload}-svc"


def client_proxy_name(workload: str, client: str) -> str:
    """Deployment and Service of one service-mode client's IFRT proxy."""
    return f"{workload}-proxy-{client}"


def lws_leader_host(lws: str, group: int = 0) -> str:
    """Namespace-relative host name of a group's leader pod: `<lws>-<g>.<lws>` (headless Service, Shared)."""
    return f"{lws}-{group}.{lws}"


# Environment variables a multi-controller JAX pod gets from pathways-gke (render/jax_jobset.py); a
# workload's env/secretEnv may not redefine them (config/checks.py).
JAX_MANAGED_ENV = (
    "JOBSET_NAME", "REPLICATED_JOB_NAME", "JOB_INDEX", "JOB_COMPLETION_INDEX", "JOBSET_COORDINATOR",
    "PROCESSES_IN_JOB", "JAX_NUM_PROCESSES", "JAX_PROCESS_COUNT", "JAX_PROCESS_ID", "JAX_COORDINATOR_PORT",
    "JAX_COORDINATOR_ADDRESS", "MEGASCALE_COORDINATOR_ADDRESS", "MEGASCALE_NUM_SLICES", "MEGASCALE_SLICE_ID",
)
# ... and per platform (on TPU JAX_PLATFORMS is the user's choice)
JAX_PLATFORM_ENV = {"cpu": {"JAX_PLATFORMS": "cpu"}, "tpu": {}}


def jax_managed_env(platform: str) -> tuple[str, ...]:
    return JAX_MANAGED_ENV + tuple(JAX_PLATFORM_ENV[platform])


# The PriorityClass ladder XPK and Cluster Toolkit create: the same five names and values, so their job specs
# keep working (addons/priority.py builds the objects).
PRIORITY_LADDER: tuple[tuple[str, int], ...] = (
    ("very-low", 100),
    ("low", 250),
    ("medium", 500),
    ("high", 750),
    ("very-high", 1000),
)
PRIORITY_NAMES = tuple(name for name, _ in PRIORITY_LADDER)


# Multi-tier checkpointing (GKE's HighScaleCheckpointing add-on; XPK src/xpk/core/mtc.py, docker_resources.py):
# the CSI driver of the RAM-disk volume, the volume's name in our pods (XPK and Cluster Toolkit call it `cache`; a
# name of ours keeps it apart from a user's volumes), the CheckpointConfiguration kind, and the Kubernetes service
# account the add-on's node agent runs as (its Workload Identity principal gets the bucket grant).
MTC_CSI_DRIVER = "multitier-checkpoint.csi.storage.gke.io"
MTC_VOLUME = "mtc-local-checkpoints"
MTC_API_VERSION = "checkpointing.gke.io/v1"
MTC_KIND = "CheckpointConfiguration"
MTC_AGENT_NAMESPACE = "gke-managed-checkpointing"
MTC_AGENT_KSA = "gke-checkpointing-multitier-node"
INSTANCE_TYPE_NODE_KEY = "node.kubernetes.io/instance-type"


def checkpoint_configuration_name(machine_type: str) -> str:
    """The CheckpointConfiguration of one TPU machine type (cluster-scoped, one per machine type)."""
    return f"pathways-gke-{machine_type}"
