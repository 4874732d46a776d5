"""Which input changes REPLACE a resource (delete + create) instead of updating it in place.

The offline plan has no provider `Diff`, so this table stands in for it. pulumi-gcp is bridged
from the Terraform google provider: an input marked ForceNew there replaces the resource here
(the ForceNew fields of google_container_node_pool; pulumi/pulumi-gcp#412). Paths use Pulumi's property-path syntax
(see property_paths.py); a pattern covers everything below it. A credentialed `pulumi preview --diff`
(its `replaceReasons`) remains the source of truth; keep this table in step with the provider
version pinned in pyproject.toml.

Besides this table a resource is replaced when:
- a changed path falls under its own `options.replaceOnChanges` (our JobSets use `["spec"]`:
  JobSet's `spec.replicatedJobs` is immutable server-side, https://github.com/kubernetes-sigs/jobset/blob/v0.12.0/pkg/webhooks/jobset_webhook.go);
- a resource it lists in `options.replaceWith` is replaced (a JobSet lists its TPU slice pools);
- its provider is replaced (a new `pulumi:providers:kubernetes` replaces every object it manages).

Pure data: no Pulumi import.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any, Mapping

from .. import tokens
from ..gke_rules import SERVER_FILLED_TPU_FIELDS, SERVER_FILLED_WORKLOAD_POLICY_FIELDS
from ..property_paths import value_at

ANY_INPUT = ("*",)

# Node pools — ForceNew in the provider (google_container_node_pool +
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

# GKE clusters — ForceNew in google_container_cluster (the ones a stack can reach).
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
    tokens.DEPLOYMENT: ("spec.selector",),
    tokens.JOB: ("spec.selector", "spec.template"),
    tokens.SERVICE: ("spec.clusterIP", "spec.type"),
    tokens.ROLE_BINDING: ("roleRef",),
})

REPLACE_PATHS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: _NODE_POOL_FORCE_NEW,
    tokens.GKE_CLUSTER: _CLUSTER_FORCE_NEW,
    tokens.SERVICE_ACCOUNT: ("accountId", "project"),
    tokens.PROJECT_IAM_MEMBER: ("project", "role", "member", "condition"),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: ("serviceAccountId", "role", "member", "condition"),
    tokens.RESOURCE_POLICY: ANY_INPUT,  # resource policies are immutable
    # google_compute_firewall: name, network, direction, project are ForceNew
    tokens.FIREWALL: ("name", "project", "network", "direction"),
    # Only a new clusterIdentifier replaces the provider (pulumi-kubernetes provider.py); without one
    # a new kubeconfig/context/cluster does too (provider replacement cascades: pulumi/pulumi#8991).
    tokens.KUBERNETES_PROVIDER: ("clusterIdentifier",),
})
K8S_PROVIDER_WITHOUT_IDENTIFIER = ("kubeconfig", "context", "cluster")

# In-place updates that still re-create every node of the pool (GKE rolls the nodes): on a TPU
# slice that ends the running job just like a replacement does, so they are called out too.
NODES_RECREATED: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: ("nodeConfig.machineType", "nodeConfig.diskSizeGb", "nodeConfig.diskType", "nodeConfig.imageType",
                "nodeConfig.bootDisk", "version"),
})


def replace_patterns(resource_type: str, new_inputs: Mapping) -> tuple[str, ...]:
    """The replace-forcing input patterns of a resource (empty when none are known)."""
    if tokens.is_kubernetes_type(resource_type) and "apiVersion" in new_inputs:  # an object, not a component
        return _K8S_IDENTITY + _K8S_FORCE_NEW.get(resource_type, ())
    patterns = REPLACE_PATHS.get(resource_type, ())
    if resource_type == tokens.KUBERNETES_PROVIDER and not new_inputs.get("clusterIdentifier"):
        patterns = patterns + K8S_PROVIDER_WITHOUT_IDENTIFIER
    return patterns


# --- fixed physical names -------------------------------------------------------------------------------
# Resources whose cloud/cluster name is an input: Pulumi replaces create-before-delete by default, so a
# successor with the same name fails with 409 / AlreadyExists unless the resource is deleteBeforeReplace.
# Changing one of the identity inputs gives the successor another name (or scope), so it can coexist.
IDENTITY_INPUTS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: ("name", "namePrefix", "project", "location", "cluster"),
    tokens.GKE_CLUSTER: ("name", "project", "location"),
    tokens.RESOURCE_POLICY: ("name", "project", "region"),
    tokens.FIREWALL: ("name", "project"),
    tokens.SERVICE_ACCOUNT: ("accountId", "project"),
})
NAME_INPUT: Mapping[str, str] = MappingProxyType({
    tokens.NODE_POOL: "name", tokens.GKE_CLUSTER: "name", tokens.RESOURCE_POLICY: "name", tokens.FIREWALL: "name",
    tokens.SERVICE_ACCOUNT: "accountId",
})

# Force-new node-pool fields GKE fills in on TPU slices (the rulebook's list; the pools ignore them).
SERVER_FILLED_NODE_POOL_FIELDS = (*SERVER_FILLED_TPU_FIELDS, *SERVER_FILLED_WORKLOAD_POLICY_FIELDS)


def is_k8s_object(resource: Mapping[str, Any]) -> bool:
    return tokens.is_kubernetes_type(resource["type"]) and "apiVersion" in (resource.get("inputs") or {})


def fixed_name(resource: Mapping[str, Any]) -> str | None:
    """The fixed physical name of a resource, or None (computed, auto-named, or a type without one)."""
    if is_k8s_object(resource):
        name = value_at(resource, "inputs.metadata.name")
    else:
        key = NAME_INPUT.get(resource["type"])
        name = value_at(resource, ("inputs", key)) if key else None
    return name if isinstance(name, str) and name and not name.startswith("<") else None


def identity_patterns(resource: Mapping[str, Any]) -> tuple[str, ...]:
    return _K8S_IDENTITY if is_k8s_object(resource) else IDENTITY_INPUTS.get(resource["type"], ())


def replaceable_keeping_name(resource: Mapping[str, Any]) -> bool:
    """Can a change replace this resource while its name stays the same?"""
    options = resource.get("options") or {}
    if options.get("replaceOnChanges") or options.get("replaceWith"):
        return True
    identity = set(identity_patterns(resource))
    return any(p not in identity for p in replace_patterns(resource["type"], resource.get("inputs") or {}))


def name_clash_on_replace(resource: Mapping[str, Any]) -> bool:
    """A fixed-name resource that a change can replace and that is not deleted first: the successor gets 409."""
    options = resource.get("options") or {}
    return (resource.get("custom", True) and fixed_name(resource) is not None
            and replaceable_keeping_name(resource) and not options.get("deleteBeforeReplace"))

