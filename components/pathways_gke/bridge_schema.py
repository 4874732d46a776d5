"""The Terraform bridge's replace decision for the GCP resources pathways-gke registers, from their schemas.

pulumi-gcp runs terraform-provider-google-beta (TFB v7.42.0, what REAL_PATH.md cites) under
pulumi-terraform-bridge. A change replaces a GCP resource exactly when Terraform's SDKv2 diff marks it
RequiresNew, which follows the schema, not the property path:

- a **ForceNew attribute** (`A…F`) replaces when it gets a value different from the state's; one that is also
  Computed (`C`: Optional+Computed) and left out of the config keeps the state's value, so removing it is no change;
- a **ForceNew block** (`B…F`, a nested `schema.Resource` list, in Pulumi an object when MaxItems is 1) replaces
  only when its element count changes (added, removed; an Optional+Computed block left out keeps the state);
  a change of the fields inside an existing element is an update unless those fields are ForceNew themselves
  (pulumi-terraform-bridge `pkg/tests/diff_test/diff_test.go`, `TestBlockCollectionForceNew` and
  `TestBlockCollectionElementForceNew`; SDKv2 `schemaMap.diffList`: the count's RequiresNew is the block's
  ForceNew). A TPU pool's `placementPolicy.tpuTopology` / `type` are not ForceNew: changing them is an update
  (that GKE refuses for a slice), only `placementPolicy.policyName` and adding/removing the block replace;
- an **unknown** value (an input that reads a resource being replaced delete-first) is sent to Terraform as a
  block of one element holding unknowns for its Required fields only (pulumi-terraform-bridge
  `pkg/tfbridge/schema.go`, `makeTerraformUnknown` / `makeTerraformUnknownElement`); an unknown ForceNew
  attribute replaces.

The bridge deletes first on its own (pulumi-terraform-bridge `pkg/tfbridge/provider.go`, `Diff`:
`deleteBeforeReplace = len(replaces) > 0 && (res.Schema.DeleteBeforeReplace || nameRequiresDeleteBeforeReplace)`)
for the resources pulumi-gcp marks `DeleteBeforeReplace` (`provider/resources.go`: google_project_iam_member,
google_project_iam_policy) and for a resource whose autonamed field was given explicitly
(`nameRequiresDeleteBeforeReplace`, `pkg/tfbridge/schema.go`; pulumi-gcp `SetAutonaming(255, "-")` autonames every
resource's `name`, and `account_id` of google_service_account): a fixed name cannot exist twice.

Flags per path (Pulumi property names, list indices dropped): A attribute | B block, F ForceNew, C Computed,
R Required. Paths not listed are neither ForceNew nor hold a ForceNew field: a change there is an update. The
tables were read from TFB v7.42.0 `google-beta/services/container/resource_container_node_pool.go`
(`schemaNodePool`, `ResourceContainerNodePool`), `node_config.go` (`schemaNodeConfig`),
`resource_container_cluster.go` (`ResourceContainerCluster`), `compute/resource_compute_resource_policy.go`,
`compute/resource_compute_firewall.go`, `compute/resource_compute_router.go`, `compute/resource_compute_router_nat.go`,
`storage/resource_storage_bucket.go`, `resourcemanager/resource_google_service_account.go` and
`tpgiamresource/resource_iam_member.go`. Pure data and one walk: no Pulumi import.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Iterable, Optional

from . import tokens
from .property_paths import Part, contains, format_path

# --- node_config (shared by the node pool and the cluster's default node config) ---------------------------------
NODE_CONFIG: Mapping[str, str] = MappingProxyType({
    "taintConfig": "B", "taintConfig.architectureTaintBehavior": "AR", "bootDisk": "B", "guestAccelerators": "BFC",
    "guestAccelerators.count": "AFR", "guestAccelerators.type": "AFR",
    "guestAccelerators.gpuDriverInstallationConfig": "BFC",
    "guestAccelerators.gpuDriverInstallationConfig.gpuDriverVersion": "AFR",
    "guestAccelerators.gpuPartitionSize": "AF", "guestAccelerators.gpuSharingConfig": "BF",
    "guestAccelerators.gpuSharingConfig.gpuSharingStrategy": "AFR",
    "guestAccelerators.gpuSharingConfig.maxSharedClientsPerGpu": "AFR", "nodeImageConfigs": "BC",
    "localSsdCount": "AFC", "ephemeralStorageConfig": "BF", "ephemeralStorageConfig.localSsdCount": "AFR",
    "ephemeralStorageLocalSsdConfig": "BF", "ephemeralStorageLocalSsdConfig.localSsdCount": "AFR",
    "ephemeralStorageLocalSsdConfig.dataCacheCount": "AF", "localNvmeSsdBlockConfig": "BF",
    "localNvmeSsdBlockConfig.localSsdCount": "AFR", "secondaryBootDisks": "BF", "secondaryBootDisks.diskImage": "AFR",
    "secondaryBootDisks.mode": "AF", "gcfsConfig": "B", "gcfsConfig.enabled": "AR", "gvnic": "B",
    "gvnic.enabled": "AR", "metadata": "AFC", "minCpuPlatform": "AFC", "oauthScopes": "AFC", "preemptible": "AF",
    "reservationAffinity": "BF", "reservationAffinity.consumeReservationType": "AFR", "reservationAffinity.key": "AF",
    "reservationAffinity.values": "AF", "spot": "AF", "serviceAccount": "AFC", "shieldedInstanceConfig": "BFC",
    "shieldedInstanceConfig.enableSecureBoot": "AF", "shieldedInstanceConfig.enableIntegrityMonitoring": "AF",
    "taints": "B", "taints.key": "AR", "taints.value": "AR", "taints.effect": "AR", "effectiveTaints": "BC",
    "workloadMetadataConfig": "BC", "workloadMetadataConfig.mode": "AR", "sandboxConfig": "BF",
    "bootDiskKmsKey": "AF", "kubeletConfig": "BC", "kubeletConfig.memoryManager": "B",
    "kubeletConfig.topologyManager": "B", "kubeletConfig.evictionSoft": "B",
    "kubeletConfig.evictionSoftGracePeriod": "B", "kubeletConfig.evictionMinimumReclaim": "B",
    "kubeletConfig.crashLoopBackOff": "B", "linuxNodeConfig": "BC", "linuxNodeConfig.nodeKernelModuleLoading": "B",
    "linuxNodeConfig.hugepagesConfig": "B", "linuxNodeConfig.swapConfig": "B",
    "linuxNodeConfig.accurateTimeConfig": "B", "linuxNodeConfig.customNodeInit": "B", "windowsNodeConfig": "BC",
    "nodeGroup": "AF", "advancedMachineFeatures": "BF", "advancedMachineFeatures.threadsPerCore": "AFR",
    "advancedMachineFeatures.enableNestedVirtualization": "AF", "soleTenantConfig": "BF",
    "soleTenantConfig.nodeAffinities": "BFR", "soleTenantConfig.nodeAffinities.key": "AFR",
    "soleTenantConfig.nodeAffinities.operator": "AFR", "soleTenantConfig.nodeAffinities.values": "AFR",
    "hostMaintenancePolicy": "BF", "hostMaintenancePolicy.maintenanceInterval": "AFR", "confidentialNodes": "BC",
    "confidentialNodes.enabled": "AR", "confidentialNodes.confidentialInstanceType": "AF", "fastSocket": "B",
    "fastSocket.enabled": "AR", "enableConfidentialStorage": "AF", "localSsdEncryptionMode": "AF",
    "maxRunDuration": "AF", "flexStart": "AF",
})

# --- google_container_node_pool (schemaNodePool + the project / cluster / location of ResourceContainerNodePool) ---
_NODE_POOL_TOP: Mapping[str, str] = MappingProxyType({
    "autoscaling": "B", "placementPolicy": "BF", "placementPolicy.type": "AR", "placementPolicy.policyName": "AF",
    "queuedProvisioning": "BF", "queuedProvisioning.enabled": "AFR", "maxPodsPerNode": "AFC", "upgradeSettings": "BC",
    "initialNodeCount": "AFC", "management": "BC", "name": "AFC", "namePrefix": "AFC", "nodeConfig": "BFC",
    "networkConfig": "BC", "networkConfig.acceleratorNetworkProfile": "AF", "networkConfig.createPodRange": "AF",
    "networkConfig.podRange": "AFC", "networkConfig.podIpv4CidrBlock": "AFC",
    "networkConfig.additionalNodeNetworkConfigs": "BFC", "networkConfig.additionalNodeNetworkConfigs.network": "AFC",
    "networkConfig.additionalNodeNetworkConfigs.subnetwork": "AFC", "networkConfig.additionalPodNetworkConfigs": "BF",
    "networkConfig.additionalPodNetworkConfigs.subnetwork": "AF",
    "networkConfig.additionalPodNetworkConfigs.secondaryPodRange": "AF",
    "networkConfig.additionalPodNetworkConfigs.maxPodsPerNode": "AFC",
    "networkConfig.podCidrOverprovisionConfig": "BFC", "networkConfig.podCidrOverprovisionConfig.disabled": "AR",
    "networkConfig.networkPerformanceConfig": "B",
    "networkConfig.networkPerformanceConfig.totalEgressBandwidthTier": "AR", "networkConfig.subnetwork": "AFC",
    "nodeDrainConfigs": "BC", "maintenancePolicies": "B", "maintenancePolicies.exclusionUntilEndOfSupports": "B",
})

# --- google_container_cluster (the blocks and the ForceNew fields a stack can reach) ------------------------------
_CLUSTER_TOP: Mapping[str, str] = MappingProxyType({
    "name": "AFR", "location": "AFC", "addonsConfig": "BC", "addonsConfig.httpLoadBalancing": "BC",
    "addonsConfig.httpLoadBalancing.disabled": "AR", "addonsConfig.horizontalPodAutoscaling": "BC",
    "addonsConfig.horizontalPodAutoscaling.disabled": "AR", "addonsConfig.networkPolicyConfig": "BC",
    "addonsConfig.networkPolicyConfig.disabled": "AR", "addonsConfig.gcpFilestoreCsiDriverConfig": "BC",
    "addonsConfig.gcpFilestoreCsiDriverConfig.enabled": "AR", "addonsConfig.cloudrunConfig": "BC",
    "addonsConfig.cloudrunConfig.disabled": "AR", "addonsConfig.dnsCacheConfig": "BC",
    "addonsConfig.dnsCacheConfig.enabled": "AR", "addonsConfig.gcePersistentDiskCsiDriverConfig": "BC",
    "addonsConfig.gcePersistentDiskCsiDriverConfig.enabled": "AR", "addonsConfig.gkeBackupAgentConfig": "BC",
    "addonsConfig.gkeBackupAgentConfig.enabled": "AR", "addonsConfig.gcsFuseCsiDriverConfig": "BC",
    "addonsConfig.gcsFuseCsiDriverConfig.enabled": "AR", "addonsConfig.parallelstoreCsiDriverConfig": "BC",
    "addonsConfig.parallelstoreCsiDriverConfig.enabled": "AR", "addonsConfig.lustreCsiDriverConfig": "BC",
    "addonsConfig.lustreCsiDriverConfig.enabled": "AR", "addonsConfig.podSnapshotConfig": "BC",
    "addonsConfig.podSnapshotConfig.enabled": "AR", "addonsConfig.istioConfig": "BC",
    "addonsConfig.istioConfig.disabled": "AR", "addonsConfig.kalmConfig": "BC",
    "addonsConfig.kalmConfig.enabled": "AR", "addonsConfig.configConnectorConfig": "BC",
    "addonsConfig.configConnectorConfig.enabled": "AR", "addonsConfig.statefulHaConfig": "BC",
    "addonsConfig.statefulHaConfig.enabled": "AR", "addonsConfig.sliceControllerConfig": "BC",
    "addonsConfig.sliceControllerConfig.enabled": "AR", "addonsConfig.rayOperatorConfigs": "BC",
    "addonsConfig.rayOperatorConfigs.enabled": "AR", "addonsConfig.rayOperatorConfigs.rayClusterLoggingConfig": "BC",
    "addonsConfig.rayOperatorConfigs.rayClusterLoggingConfig.enabled": "AR",
    "addonsConfig.rayOperatorConfigs.rayClusterMonitoringConfig": "BC",
    "addonsConfig.rayOperatorConfigs.rayClusterMonitoringConfig.enabled": "AR",
    "addonsConfig.slurmOperatorConfig": "BC", "addonsConfig.slurmOperatorConfig.enabled": "AR",
    "addonsConfig.nodeReadinessConfig": "BC", "addonsConfig.nodeReadinessConfig.enabled": "AR",
    "addonsConfig.agentSandboxConfig": "BC", "addonsConfig.agentSandboxConfig.enabled": "AR",
    "clusterAutoscaling": "BC", "clusterAutoscaling.resourceLimits": "BC",
    "clusterAutoscaling.resourceLimits.resourceType": "AR", "clusterAutoscaling.resourceLimits.maximum": "AR",
    "clusterAutoscaling.autoProvisioningDefaults": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey": "AF", "clusterIpv4Cidr": "AFC", "description": "AF",
    "binaryAuthorization": "B", "enableKubernetesAlpha": "AF", "enableK8sBetaApis": "B",
    "enableK8sBetaApis.enabledApis": "AR", "enableTpu": "AFC", "tpuConfig": "BC", "tpuConfig.enabled": "AFR",
    "tpuConfig.useServiceNetworking": "AF", "enableAutopilot": "AF", "authenticatorGroupsConfig": "BC",
    "authenticatorGroupsConfig.securityGroup": "AR", "initialNodeCount": "AF", "loggingConfig": "BC",
    "loggingConfig.enableComponents": "AR", "rollbackSafeUpgrade": "B", "protectConfig": "BC",
    "protectConfig.workloadConfig": "BC", "protectConfig.workloadConfig.auditMode": "AR",
    "securityPostureConfig": "BC", "managedMachineLearningDiagnosticsConfig": "BC", "monitoringConfig": "BC",
    "monitoringConfig.managedPrometheus": "BC", "monitoringConfig.managedPrometheus.enabled": "AR",
    "monitoringConfig.managedPrometheus.autoMonitoringConfig": "BC",
    "monitoringConfig.managedPrometheus.autoMonitoringConfig.scope": "AR",
    "monitoringConfig.advancedDatapathObservabilityConfig": "BC",
    "monitoringConfig.advancedDatapathObservabilityConfig.enableMetrics": "AR",
    "monitoringConfig.advancedDatapathObservabilityConfig.enableRelay": "AR", "confidentialNodes": "BFC",
    "confidentialNodes.enabled": "AFR", "confidentialNodes.confidentialInstanceType": "AF", "masterAuth": "BC",
    "network": "AF", "networkPolicy": "B", "networkPolicy.enabled": "AR", "podSecurityPolicyConfig": "B",
    "podSecurityPolicyConfig.enabled": "AR", "podAutoscaling": "BC", "podAutoscaling.hpaProfile": "AR",
    "secretManagerConfig": "B", "secretManagerConfig.enabled": "AR", "secretManagerConfig.rotationConfig": "BC",
    "secretManagerConfig.rotationConfig.enabled": "AR", "secretSyncConfig": "B", "secretSyncConfig.enabled": "AR",
    "secretSyncConfig.rotationConfig": "BC", "secretSyncConfig.rotationConfig.enabled": "AR", "project": "AFC",
    "subnetwork": "AFC", "ipAllocationPolicy": "BFC", "ipAllocationPolicy.clusterIpv4CidrBlock": "AFC",
    "ipAllocationPolicy.servicesIpv4CidrBlock": "AFC", "ipAllocationPolicy.clusterSecondaryRangeName": "AFC",
    "ipAllocationPolicy.servicesSecondaryRangeName": "AFC", "ipAllocationPolicy.podCidrOverprovisionConfig": "BFC",
    "ipAllocationPolicy.podCidrOverprovisionConfig.disabled": "AR",
    "ipAllocationPolicy.additionalPodRangesConfig": "B",
    "ipAllocationPolicy.additionalPodRangesConfig.podRangeNames": "AR",
    "ipAllocationPolicy.additionalIpRangesConfigs": "B",
    "ipAllocationPolicy.additionalIpRangesConfigs.subnetwork": "AR", "ipAllocationPolicy.autoIpamConfig": "BC",
    "ipAllocationPolicy.autoIpamConfig.enabled": "AR", "ipAllocationPolicy.networkTierConfig": "BC",
    "ipAllocationPolicy.networkTierConfig.networkTier": "AR", "managedOpentelemetryConfig": "BC",
    "networkingMode": "AFC", "controlPlaneEndpointsConfig": "BC",
    "controlPlaneEndpointsConfig.dnsEndpointConfig": "BC", "controlPlaneEndpointsConfig.ipEndpointsConfig": "BC",
    "privateClusterConfig": "BC", "privateClusterConfig.masterIpv4CidrBlock": "AFC",
    "privateClusterConfig.privateEndpointSubnetwork": "AF", "privateClusterConfig.masterGlobalAccessConfig": "BC",
    "privateClusterConfig.masterGlobalAccessConfig.enabled": "AR", "defaultMaxPodsPerNode": "AFC",
    "verticalPodAutoscaling": "BC", "verticalPodAutoscaling.enabled": "AR", "workloadIdentityConfig": "BC",
    "identityServiceConfig": "BC", "serviceExternalIpsConfig": "BC", "serviceExternalIpsConfig.enabled": "AR",
    "meshCertificates": "BC", "meshCertificates.enableCertificates": "AR", "databaseEncryption": "BC",
    "databaseEncryption.state": "AR", "releaseChannel": "BC", "releaseChannel.channel": "AR",
    "gkeAutoUpgradeConfig": "BC", "gkeAutoUpgradeConfig.patchMode": "AR", "clusterTelemetry": "BC",
    "clusterTelemetry.type": "AR", "defaultSnatStatus": "BC", "defaultSnatStatus.disabled": "AR",
    "datapathProvider": "AFC", "dataplaneOptimizationMode": "AF", "costManagementConfig": "BC",
    "costManagementConfig.enabled": "AR", "dnsConfig": "B", "gatewayApiConfig": "BC",
    "gatewayApiConfig.channel": "AR", "fleet": "B", "userManagedKeysConfig": "B",
    "userManagedKeysConfig.clusterCa": "AF", "userManagedKeysConfig.etcdApiCa": "AF",
    "userManagedKeysConfig.etcdPeerCa": "AF", "userManagedKeysConfig.aggregationCa": "AF", "workloadAltsConfig": "BC",
    "workloadAltsConfig.enableAlts": "AR", "enterpriseConfig": "BC", "networkPerformanceConfig": "B",
    "networkPerformanceConfig.totalEgressBandwidthTier": "AR", "anonymousAuthenticationConfig": "BC",
    "anonymousAuthenticationConfig.mode": "AR", "nodeCreationConfig": "BC",
    "nodeCreationConfig.nodeCreationMode": "AR", "rbacBindingConfig": "BC", "autopilotClusterPolicyConfig": "BC",
})


def _with_node_config(top: Mapping[str, str], extra: Mapping[str, str]) -> Mapping[str, str]:
    return MappingProxyType({**top, **extra, "nodeConfig": "BFC", **{f"nodeConfig.{k}": v for k, v in NODE_CONFIG.items()}})


_CONDITION = {"condition": "BF", "condition.expression": "AFR", "condition.title": "AFR", "condition.description": "AF"}

SCHEMAS: Mapping[str, Mapping[str, str]] = MappingProxyType({
    tokens.NODE_POOL: _with_node_config(_NODE_POOL_TOP, {"project": "AFC", "cluster": "AFR", "location": "AFC"}),
    tokens.GKE_CLUSTER: _with_node_config(_CLUSTER_TOP, {}),
    # every field of a resource policy but name and description is ForceNew where it holds a value
    tokens.RESOURCE_POLICY: MappingProxyType({
        "region": "AFC", "project": "AFC", "diskConsistencyGroupPolicy": "B", "diskConsistencyGroupPolicy.enabled": "AFR",
        "groupPlacementPolicy": "B", "groupPlacementPolicy.tpuTopology": "AF", "groupPlacementPolicy.gpuTopology": "AF",
        "workloadPolicy": "B", "workloadPolicy.type": "AFR", "workloadPolicy.acceleratorTopology": "AF",
        "workloadPolicy.acceleratorTopologyMode": "AF", "workloadPolicy.maxTopologyDistance": "AF"}),
    tokens.FIREWALL: MappingProxyType({"name": "AFR", "direction": "AFC", "project": "AFC", "params": "BF"}),
    tokens.ROUTER: MappingProxyType({"name": "AFR", "network": "AFR", "region": "AFC", "project": "AFC",
                                     "encryptedInterconnectRouter": "AF", "nccGateway": "AF", "params": "BF"}),
    tokens.ROUTER_NAT: MappingProxyType({"name": "AFR", "router": "AFR", "region": "AFC", "project": "AFC",
                                         "endpointTypes": "AFC", "initialNatIps": "AF", "type": "AF"}),
    tokens.BUCKET: MappingProxyType({"name": "AFR", "location": "AFR", "project": "AFC", "enableObjectRetention": "AF",
                                     "hierarchicalNamespace": "BF", "hierarchicalNamespace.enabled": "AFR"}),
    tokens.SERVICE_ACCOUNT: MappingProxyType({"accountId": "AFR", "project": "AFC"}),
    tokens.PROJECT_IAM_MEMBER: MappingProxyType({"project": "AFR", "role": "AFR", "member": "AFR", **_CONDITION}),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: MappingProxyType({"serviceAccountId": "AFR", "role": "AFR", "member": "AFR",
                                                         **_CONDITION}),
    tokens.BUCKET_IAM_MEMBER: MappingProxyType({"bucket": "AFR", "role": "AFR", "member": "AFR", **_CONDITION}),
})

# pulumi-gcp provider/resources.go: `DeleteBeforeReplace: true` (of the types pathways-gke registers)
DELETE_BEFORE_REPLACE_TYPES = frozenset({tokens.PROJECT_IAM_MEMBER})
# The autonamed field of each type (pulumi-gcp resources.go: SetAutonaming(255, "-") for every `name` input,
# `account_id: AutoName(...)` for google_service_account, `name: AutoName("name", 222, "-")` for buckets).
AUTONAMED_FIELD: Mapping[str, str] = MappingProxyType({
    tokens.NODE_POOL: "name", tokens.GKE_CLUSTER: "name", tokens.RESOURCE_POLICY: "name", tokens.FIREWALL: "name",
    tokens.ROUTER: "name", tokens.ROUTER_NAT: "name", tokens.BUCKET: "name", tokens.SERVICE_ACCOUNT: "accountId",
})


class _Unknown:
    """An input value the engine passes as unknown (a computed output of a resource being replaced)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()
_ABSENT: Any = object()


def has_schema(resource_type: str) -> bool:
    return resource_type in SCHEMAS


def force_new_paths(resource_type: str) -> tuple[str, ...]:
    """Every ForceNew attribute and block of a type (the replace table the docs and the fixed-name checks read)."""
    return tuple(p for p, flags in SCHEMAS.get(resource_type, {}).items() if "F" in flags)


def replace_paths(resource_type: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[tuple[Part, ...]]:
    """The paths at which the bridge's diff of `old` -> `new` requires a new resource (empty: update or none).

    `new` may hold `UNKNOWN` values (the delete-before-replace re-diff). Types without a schema here have no
    ForceNew field pathways-gke sets."""
    schema = SCHEMAS.get(resource_type)
    out: list[tuple[Part, ...]] = []
    if schema is not None:
        _walk(schema, "", (), old, new, out)
    return out


def deletes_first(resource_type: str, new: Mapping[str, Any]) -> bool:
    """Does the bridge ask the engine to delete this resource before creating its replacement?"""
    if resource_type in DELETE_BEFORE_REPLACE_TYPES:
        return True
    field = AUTONAMED_FIELD.get(resource_type)
    value = new.get(field) if field else None
    return isinstance(value, str) and bool(value)  # given explicitly (never left to the autonamer)


def _walk(schema: Mapping[str, str], prefix: str, path: tuple[Part, ...], old: Any, new: Any,
          out: list[tuple[Part, ...]]) -> None:
    olds = old if isinstance(old, Mapping) else {}
    news = new if isinstance(new, Mapping) else {}
    for key in sorted(set(olds) | set(news), key=str):
        spath = f"{prefix}.{key}" if prefix else str(key)
        flags = schema.get(spath)
        if flags is None:
            continue  # neither ForceNew nor holding a ForceNew field
        o, n = olds.get(key, _ABSENT), news.get(key, _ABSENT)
        here = (*path, key)
        if flags[0] == "A":
            if "F" in flags and _attribute_changes(o, n, computed="C" in flags):
                out.append(here)
            continue
        if _missing(n) and "C" in flags:
            continue  # an Optional+Computed block left out of the config keeps the state's value
        old_elements, new_elements = _elements(o), _elements(n, schema, spath)
        if "F" in flags and len(old_elements) != len(new_elements):
            out.append(here)
            continue
        indexed = isinstance(n, list) or isinstance(o, list)
        # an element added to (or removed from) a block that is not ForceNew itself is diffed field by field
        # against nothing: its ForceNew fields then replace (TestBlockCollectionElementForceNew)
        for i in range(max(len(old_elements), len(new_elements))):
            oe = old_elements[i] if i < len(old_elements) else {}
            ne = new_elements[i] if i < len(new_elements) else {}
            _walk(schema, spath, (*here, i) if indexed else here, oe, ne, out)


def _attribute_changes(old: Any, new: Any, computed: bool) -> bool:
    if new is UNKNOWN:
        return True
    if _missing(new):
        return not computed and not _missing(old)
    return _missing(old) or old != new


def _missing(value: Any) -> bool:
    return value is _ABSENT or value is None


def _elements(value: Any, schema: Optional[Mapping[str, str]] = None, spath: str = "") -> list[Any]:
    """A block's elements: a MaxItems-1 block is one object in Pulumi, a list block a list; an unknown block is one
    element with its Required fields unknown (makeTerraformUnknownElement)."""
    if value is UNKNOWN:
        return [{key: UNKNOWN for key in _required_children(schema or {}, spath)}]
    if _missing(value):
        return []
    if isinstance(value, list):
        return value
    return [value]


def _required_children(schema: Mapping[str, str], spath: str) -> Iterable[str]:
    depth = spath.count(".") + 1
    for path, flags in schema.items():
        if path.startswith(spath + ".") and path.count(".") == depth and "R" in flags:
            yield path.rpartition(".")[2]


def ignored(reasons: Iterable[tuple[Part, ...]], ignore_changes: Iterable[tuple[Part, ...]]) -> list[tuple[Part, ...]]:
    """Replace reasons the resource's ignoreChanges does not drop (the bridge drops the diff of every TF attribute
    under an ignored path: pulumi-terraform-bridge `pkg/tfbridge/diff.go`)."""
    patterns = list(ignore_changes)
    return [r for r in reasons if not any(contains(p, r) for p in patterns)]


__all__ = ["AUTONAMED_FIELD", "DELETE_BEFORE_REPLACE_TYPES", "NODE_CONFIG", "SCHEMAS", "UNKNOWN", "deletes_first",
           "force_new_paths", "format_path", "has_schema", "ignored", "replace_paths"]
