"""Which input changes REPLACE a resource (delete + create) instead of updating it in place.

The offline plan has no provider `Diff`, so this table stands in for it. pulumi-gcp is bridged
from the Terraform google provider: an input marked ForceNew there replaces the resource here
(TPU_NODE_POOLS.md §13.1, PULUMI_NOTES.md §7). Paths use Pulumi's property-path syntax
(see paths.py); a pattern covers everything below it. A credentialed `pulumi preview --diff`
(its `replaceReasons`) remains the source of truth; keep this table in step with the provider
version pinned in pyproject.toml.

Besides this table a resource is replaced when:
- a changed path falls under its own `options.replaceOnChanges` (our JobSets use `["spec"]`:
  JobSet's `spec.replicatedJobs` is immutable server-side, JOBSET_INSTALL.md §6.2);
- a resource it lists in `options.replaceWith` is replaced (a JobSet lists its TPU slice pools);
- its provider is replaced (a new `pulumi:providers:kubernetes` replaces every object it manages).

Pure data: no Pulumi import.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
K8S_PROVIDER = "pulumi:providers:kubernetes"
ANY_INPUT = ("*",)

# gcp:container/nodePool:NodePool — ForceNew in the provider (google_container_node_pool +
# its node_config schema). Updated in place, NOT listed: nodeCount, autoscaling, nodeLocations,
# version, management, upgradeSettings, nodeConfig.{machineType, diskSizeGb, diskType}
# (in place since magic-modules#9575, but GKE re-creates every node: see NODES_RECREATED),
# nodeConfig.{labels, resourceLabels, taints, tags, imageType, workloadMetadataConfig,
# gcfsConfig, kubeletConfig, linuxNodeConfig, loggingVariant}.
_NODE_POOL_FORCE_NEW = (
    "name", "namePrefix", "project", "location", "cluster",
    "initialNodeCount",                         # pulumi-gcp#412
    "maxPodsPerNode",
    "placementPolicy",                          # type, tpuTopology, policyName: a TPU slice's shape
    "queuedProvisioning",
    "bestEffortProvisioning",                   # "either change recreates the node pool" (provider docs)
    "networkConfig.createPodRange", "networkConfig.podRange", "networkConfig.podIpv4CidrBlock",
    "networkConfig.additionalNodeNetworkConfigs", "networkConfig.additionalPodNetworkConfigs",
    "networkConfig.podCidrOverprovisionConfig",
    "nodeConfig.spot", "nodeConfig.preemptible", "nodeConfig.flexStart",
    "nodeConfig.reservationAffinity",
    "nodeConfig.serviceAccount", "nodeConfig.oauthScopes", "nodeConfig.metadata",
    "nodeConfig.guestAccelerators", "nodeConfig.minCpuPlatform",
    "nodeConfig.localSsdCount", "nodeConfig.localNvmeSsdBlockConfig", "nodeConfig.ephemeralStorageLocalSsdConfig",
    "nodeConfig.localSsdEncryptionMode", "nodeConfig.secondaryBootDisks",
    "nodeConfig.bootDiskKmsKey", "nodeConfig.shieldedInstanceConfig", "nodeConfig.advancedMachineFeatures",
    "nodeConfig.confidentialNodes", "nodeConfig.enableConfidentialStorage",
    "nodeConfig.hostMaintenancePolicy", "nodeConfig.soleTenantConfig", "nodeConfig.nodeGroup",
    "nodeConfig.gvnic",
)

# gcp:container/cluster:Cluster — ForceNew in google_container_cluster (the ones a stack can reach).
_CLUSTER_FORCE_NEW = (
    "name", "project", "location", "network", "subnetwork", "description",
    "clusterIpv4Cidr", "ipAllocationPolicy", "networkingMode", "defaultMaxPodsPerNode",
    "enableAutopilot", "enableKubernetesAlpha", "enableTpu", "datapathProvider",
    "initialNodeCount", "nodeConfig",
    "privateClusterConfig.masterIpv4CidrBlock", "privateClusterConfig.privateEndpointSubnetwork",
)

# Every Kubernetes object: a new name, namespace, kind or group/version is a different object.
_K8S_IDENTITY = ("apiVersion", "kind", "metadata.name", "metadata.namespace")

# Built-in kinds with fields pulumi-kubernetes replaces instead of patching (its provider's forceNew table,
# pkg/provider/diff.go): the ones the serving objects and the LWS webhook gate use.
_K8S_FORCE_NEW: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "kubernetes:apps/v1:Deployment": ("spec.selector",),
    "kubernetes:batch/v1:Job": ("spec.selector", "spec.template"),
    "kubernetes:core/v1:Service": ("spec.clusterIP", "spec.type"),
    "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": ("roleRef",),
})

REPLACE_PATHS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    NODE_POOL: _NODE_POOL_FORCE_NEW,
    CLUSTER: _CLUSTER_FORCE_NEW,
    "gcp:serviceaccount/account:Account": ("accountId", "project"),
    "gcp:projects/iAMMember:IAMMember": ("project", "role", "member", "condition"),
    "gcp:serviceaccount/iAMMember:IAMMember": ("serviceAccountId", "role", "member", "condition"),
    "gcp:compute/resourcePolicy:ResourcePolicy": ANY_INPUT,  # resource policies are immutable
    # Only a new clusterIdentifier replaces the provider (pulumi-kubernetes provider.py); without one
    # a new kubeconfig/context/cluster does too (PULUMI_NOTES.md §7: provider replacement cascades).
    K8S_PROVIDER: ("clusterIdentifier",),
})
K8S_PROVIDER_WITHOUT_IDENTIFIER = ("kubeconfig", "context", "cluster")

# In-place updates that still re-create every node of the pool (GKE rolls the nodes): on a TPU
# slice that ends the running job just like a replacement does, so they are called out too.
NODES_RECREATED: Mapping[str, tuple[str, ...]] = MappingProxyType({
    NODE_POOL: ("nodeConfig.machineType", "nodeConfig.diskSizeGb", "nodeConfig.diskType", "nodeConfig.imageType",
                "nodeConfig.bootDisk", "version"),
})


def replace_patterns(resource_type: str, new_inputs: Mapping) -> tuple[str, ...]:
    """The replace-forcing input patterns of a resource (empty when none are known)."""
    if resource_type.startswith("kubernetes:") and "apiVersion" in new_inputs:  # an object, not a component
        return _K8S_IDENTITY + _K8S_FORCE_NEW.get(resource_type, ())
    patterns = REPLACE_PATHS.get(resource_type, ())
    if resource_type == K8S_PROVIDER and not new_inputs.get("clusterIdentifier"):
        patterns = patterns + K8S_PROVIDER_WITHOUT_IDENTIFIER
    return patterns
