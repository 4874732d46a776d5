"""Every name and label we put on the cloud or the cluster, decided in one place.

Resource names become URNs and GKE/Kubernetes object names: they are public API.
Changing one here needs an alias on the resource (see docs/components.md).
"""

from __future__ import annotations

# Kubernetes node labels
NODE_POOL_LABEL = "cloud.google.com/gke-nodepool"  # set by GKE on every node
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"  # set by GKE on TPU nodes
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"  # set by GKE on TPU nodes
TPU_GROUP_LABEL = "pathways-gke/tpu-group"  # ours: which pool group a TPU node belongs to
ROLE_LABEL = "pathways-gke/role"  # ours: "head" on the CPU pool, "tpu" on slices
PLACEMENT_POLICY_LABEL = "cloud.google.com/placement-policy-name"  # tpu7x workload policy
QUEUED_LABEL = "cloud.google.com/gke-queued"
DRA_NETWORK_LABEL = "cloud.google.com/gke-networking-dra-driver"

# Kubernetes taint / resource
TPU_RESOURCE = "google.com/tpu"
TPU_TAINT = {"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}

# Kueue
QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"


def tpu_node_pool_name(cluster: str, group: str, index: int) -> str:
    """GKE node-pool name of slice `index` of a TPU pool group."""
    return f"{cluster}-{group}-{index}"


def workload_policy_name(cluster: str, group: str) -> str:
    """HIGH_THROUGHPUT workload policy used by tpu7x multi-host pools of one group."""
    return f"{cluster}-{group}-wp"


def node_service_account_id(cluster: str) -> str:
    """account_id of the dedicated node service account (6-30 chars)."""
    base = f"{cluster}-nodes"
    return base if len(base) <= 30 else f"{cluster[:24].rstrip('-')}-nodes"


# Cluster services (JobSet, Kueue): names of the cluster objects we create (docs/jobset-and-kueue.md)
JOBSET_NAMESPACE = "jobset-system"  # fixed by the JobSet release manifest
KUEUE_NAMESPACE = "kueue-system"  # fixed by the Kueue release manifest
JOBSET_CRD = "jobsets.jobset.x-k8s.io"
SERVICES_CONFIGMAP = "pathways-gke-services"  # readiness marker: created after the installs are awaited
KUEUE_CLUSTER_QUEUE = "pathways-cluster-queue"
KUEUE_CPU_FLAVOR = "pathways-cpu"
KUEUE_PROVISIONING = "pathways-queued-provisioning"  # ProvisioningRequestConfig and AdmissionCheck
QUEUED_TAINT_KEY = "cloud.google.com/gke-queued"  # GKE taints queued-provisioning nodes with it


def kueue_tpu_flavor(group: str) -> str:
    """ResourceFlavor of one TPU pool group."""
    return f"pathways-tpu-{group}"
