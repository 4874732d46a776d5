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

Flags per path (Pulumi property names, list indices dropped; list blocks plural as pulumi-gcp names them):
A attribute | B block, F ForceNew, C Computed, R Required. The node-pool, node-config and cluster tables hold
every field of their schemas (tests/test_apply_outcomes.py checks that every field the plans set is classified
and every name is one of pulumi-gcp's inputs); the other types list their ForceNew fields, and a path not listed
is an update. The tables were read from TFB v7.42.0 `google-beta/services/container/resource_container_node_pool.go`
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
    "taintConfig": "B", "taintConfig.architectureTaintBehavior": "AR", "containerdConfig": "B",
    "containerdConfig.privateRegistryAccessConfig": "B", "containerdConfig.privateRegistryAccessConfig.enabled": "AR",
    "containerdConfig.privateRegistryAccessConfig.certificateAuthorityDomainConfigs": "B",
    "containerdConfig.privateRegistryAccessConfig.certificateAuthorityDomainConfigs.fqdns": "AR",
    "containerdConfig.privateRegistryAccessConfig.certificateAuthorityDomainConfigs.gcpSecretManagerCertificateConfig": "BR",
    "containerdConfig.privateRegistryAccessConfig.certificateAuthorityDomainConfigs.gcpSecretManagerCertificateConfig.secretUri": "AR",
    "containerdConfig.writableCgroups": "B", "containerdConfig.writableCgroups.enabled": "AR",
    "containerdConfig.registryHosts": "B", "containerdConfig.registryHosts.server": "AR",
    "containerdConfig.registryHosts.hosts": "B", "containerdConfig.registryHosts.hosts.host": "AR",
    "containerdConfig.registryHosts.hosts.capabilities": "A",
    "containerdConfig.registryHosts.hosts.overridePath": "A", "containerdConfig.registryHosts.hosts.dialTimeout": "A",
    "containerdConfig.registryHosts.hosts.headers": "B", "containerdConfig.registryHosts.hosts.headers.key": "AR",
    "containerdConfig.registryHosts.hosts.headers.value": "AR", "containerdConfig.registryHosts.hosts.cas": "B",
    "containerdConfig.registryHosts.hosts.cas.gcpSecretManagerSecretUri": "A",
    "containerdConfig.registryHosts.hosts.clients": "B", "containerdConfig.registryHosts.hosts.clients.cert": "BR",
    "containerdConfig.registryHosts.hosts.clients.cert.gcpSecretManagerSecretUri": "A",
    "containerdConfig.registryHosts.hosts.clients.key": "B",
    "containerdConfig.registryHosts.hosts.clients.key.gcpSecretManagerSecretUri": "A", "diskSizeGb": "AC",
    "diskType": "AC", "bootDisk": "B", "bootDisk.diskType": "AC", "bootDisk.sizeGb": "AC",
    "bootDisk.provisionedIops": "AC", "bootDisk.provisionedThroughput": "AC", "gpudirectStrategy": "AC",
    "guestAccelerators": "BFC", "guestAccelerators.count": "AFR", "guestAccelerators.type": "AFR",
    "guestAccelerators.gpuDriverInstallationConfig": "BFC",
    "guestAccelerators.gpuDriverInstallationConfig.gpuDriverVersion": "AFR",
    "guestAccelerators.gpuPartitionSize": "AF", "guestAccelerators.gpuSharingConfig": "BF",
    "guestAccelerators.gpuSharingConfig.gpuSharingStrategy": "AFR",
    "guestAccelerators.gpuSharingConfig.maxSharedClientsPerGpu": "AFR", "imageType": "AC", "nodeImageConfigs": "BC",
    "nodeImageConfigs.image": "AC", "nodeImageConfigs.imageProject": "AC", "labels": "AC", "resourceLabels": "A",
    "localSsdCount": "AFC", "loggingVariant": "A", "ephemeralStorageConfig": "BF",
    "ephemeralStorageConfig.localSsdCount": "AFR", "ephemeralStorageLocalSsdConfig": "BF",
    "ephemeralStorageLocalSsdConfig.localSsdCount": "AFR", "ephemeralStorageLocalSsdConfig.dataCacheCount": "AF",
    "localNvmeSsdBlockConfig": "BF", "localNvmeSsdBlockConfig.localSsdCount": "AFR", "secondaryBootDisks": "BF",
    "secondaryBootDisks.diskImage": "AFR", "secondaryBootDisks.mode": "AF", "gcfsConfig": "B",
    "gcfsConfig.enabled": "AR", "gvnic": "B", "gvnic.enabled": "AR", "machineType": "AC", "metadata": "AFC",
    "minCpuPlatform": "AFC", "oauthScopes": "AFC", "preemptible": "AF", "reservationAffinity": "BF",
    "reservationAffinity.consumeReservationType": "AFR", "reservationAffinity.key": "AF",
    "reservationAffinity.values": "AF", "spot": "AF", "serviceAccount": "AFC", "tags": "A", "storagePools": "A",
    "shieldedInstanceConfig": "BFC", "shieldedInstanceConfig.enableSecureBoot": "AF",
    "shieldedInstanceConfig.enableIntegrityMonitoring": "AF", "taints": "B", "taints.key": "AR", "taints.value": "AR",
    "taints.effect": "AR", "effectiveTaints": "BC", "effectiveTaints.key": "AC", "effectiveTaints.value": "AC",
    "effectiveTaints.effect": "AC", "workloadMetadataConfig": "BC", "workloadMetadataConfig.mode": "AR",
    "sandboxConfig": "BF", "sandboxConfig.sandboxType": "A", "sandboxConfig.type": "A", "bootDiskKmsKey": "AF",
    "kubeletConfig": "BC", "kubeletConfig.cpuManagerPolicy": "A", "kubeletConfig.memoryManager": "B",
    "kubeletConfig.memoryManager.policy": "AC", "kubeletConfig.topologyManager": "B",
    "kubeletConfig.topologyManager.policy": "AC", "kubeletConfig.topologyManager.scope": "AC",
    "kubeletConfig.cpuCfsQuota": "AC", "kubeletConfig.cpuCfsQuotaPeriod": "A",
    "kubeletConfig.insecureKubeletReadonlyPortEnabled": "A", "kubeletConfig.podPidsLimit": "A",
    "kubeletConfig.maxParallelImagePulls": "AC", "kubeletConfig.containerLogMaxSize": "A",
    "kubeletConfig.containerLogMaxFiles": "A", "kubeletConfig.imageGcLowThresholdPercent": "A",
    "kubeletConfig.imageGcHighThresholdPercent": "A", "kubeletConfig.imageMinimumGcAge": "A",
    "kubeletConfig.imageMaximumGcAge": "A", "kubeletConfig.allowedUnsafeSysctls": "A",
    "kubeletConfig.singleProcessOomKill": "A", "kubeletConfig.evictionMaxPodGracePeriodSeconds": "A",
    "kubeletConfig.shutdownGracePeriodSeconds": "AC", "kubeletConfig.shutdownGracePeriodCriticalPodsSeconds": "AC",
    "kubeletConfig.evictionSoft": "B", "kubeletConfig.evictionSoft.memoryAvailable": "A",
    "kubeletConfig.evictionSoft.nodefsAvailable": "A", "kubeletConfig.evictionSoft.nodefsInodesFree": "A",
    "kubeletConfig.evictionSoft.imagefsAvailable": "A", "kubeletConfig.evictionSoft.imagefsInodesFree": "A",
    "kubeletConfig.evictionSoft.pidAvailable": "A", "kubeletConfig.evictionSoftGracePeriod": "B",
    "kubeletConfig.evictionSoftGracePeriod.memoryAvailable": "A",
    "kubeletConfig.evictionSoftGracePeriod.nodefsAvailable": "A",
    "kubeletConfig.evictionSoftGracePeriod.nodefsInodesFree": "A",
    "kubeletConfig.evictionSoftGracePeriod.imagefsAvailable": "A",
    "kubeletConfig.evictionSoftGracePeriod.imagefsInodesFree": "A",
    "kubeletConfig.evictionSoftGracePeriod.pidAvailable": "A", "kubeletConfig.evictionMinimumReclaim": "B",
    "kubeletConfig.evictionMinimumReclaim.memoryAvailable": "A",
    "kubeletConfig.evictionMinimumReclaim.nodefsAvailable": "A",
    "kubeletConfig.evictionMinimumReclaim.nodefsInodesFree": "A",
    "kubeletConfig.evictionMinimumReclaim.imagefsAvailable": "A",
    "kubeletConfig.evictionMinimumReclaim.imagefsInodesFree": "A",
    "kubeletConfig.evictionMinimumReclaim.pidAvailable": "A", "kubeletConfig.crashLoopBackOff": "B",
    "kubeletConfig.crashLoopBackOff.maxContainerRestartPeriod": "A", "linuxNodeConfig": "BC",
    "linuxNodeConfig.sysctls": "A", "linuxNodeConfig.cgroupMode": "AC",
    "linuxNodeConfig.nodeKernelModuleLoading": "B", "linuxNodeConfig.nodeKernelModuleLoading.policy": "A",
    "linuxNodeConfig.transparentHugepageEnabled": "AC", "linuxNodeConfig.transparentHugepageDefrag": "A",
    "linuxNodeConfig.hugepagesConfig": "B", "linuxNodeConfig.hugepagesConfig.hugepageSize2m": "A",
    "linuxNodeConfig.hugepagesConfig.hugepageSize1g": "A", "linuxNodeConfig.swapConfig": "B",
    "linuxNodeConfig.swapConfig.bootDiskProfile": "B", "linuxNodeConfig.swapConfig.bootDiskProfile.swapSizeGib": "A",
    "linuxNodeConfig.swapConfig.bootDiskProfile.swapSizePercent": "A",
    "linuxNodeConfig.swapConfig.dedicatedLocalSsdProfile": "B",
    "linuxNodeConfig.swapConfig.dedicatedLocalSsdProfile.diskCount": "A", "linuxNodeConfig.swapConfig.enabled": "A",
    "linuxNodeConfig.swapConfig.encryptionConfig": "B", "linuxNodeConfig.swapConfig.encryptionConfig.disabled": "A",
    "linuxNodeConfig.swapConfig.ephemeralLocalSsdProfile": "B",
    "linuxNodeConfig.swapConfig.ephemeralLocalSsdProfile.swapSizeGib": "A",
    "linuxNodeConfig.swapConfig.ephemeralLocalSsdProfile.swapSizePercent": "A",
    "linuxNodeConfig.accurateTimeConfig": "B", "linuxNodeConfig.accurateTimeConfig.enablePtpKvmTimeSync": "A",
    "linuxNodeConfig.customNodeInit": "B", "linuxNodeConfig.customNodeInit.initScript": "B",
    "linuxNodeConfig.customNodeInit.initScript.gcsUri": "A",
    "linuxNodeConfig.customNodeInit.initScript.gcsGeneration": "AC",
    "linuxNodeConfig.customNodeInit.initScript.gcpSecretManagerSecretUri": "A", "windowsNodeConfig": "BC",
    "windowsNodeConfig.osversion": "A", "nodeGroup": "AF", "advancedMachineFeatures": "BF",
    "advancedMachineFeatures.threadsPerCore": "AFR", "advancedMachineFeatures.enableNestedVirtualization": "AF",
    "advancedMachineFeatures.performanceMonitoringUnit": "A", "soleTenantConfig": "BF",
    "soleTenantConfig.nodeAffinities": "BFR", "soleTenantConfig.nodeAffinities.key": "AFR",
    "soleTenantConfig.nodeAffinities.operator": "AFR", "soleTenantConfig.nodeAffinities.values": "AFR",
    "soleTenantConfig.minNodeCpus": "A", "hostMaintenancePolicy": "BF",
    "hostMaintenancePolicy.maintenanceInterval": "AFR", "confidentialNodes": "BC", "confidentialNodes.enabled": "AR",
    "confidentialNodes.confidentialInstanceType": "AF", "fastSocket": "B", "fastSocket.enabled": "AR",
    "resourceManagerTags": "A", "enableConfidentialStorage": "AF", "localSsdEncryptionMode": "AF",
    "maxRunDuration": "AF", "flexStart": "AF",
})

# --- google_container_node_pool (schemaNodePool + the project / cluster / location of ResourceContainerNodePool) ---
_NODE_POOL_TOP: Mapping[str, str] = MappingProxyType({
    "autoscaling": "B", "autoscaling.minNodeCount": "A", "autoscaling.maxNodeCount": "A",
    "autoscaling.totalMinNodeCount": "A", "autoscaling.totalMaxNodeCount": "A", "autoscaling.locationPolicy": "AC",
    "placementPolicy": "BF", "placementPolicy.type": "AR", "placementPolicy.policyName": "AF",
    "placementPolicy.tpuTopology": "A", "queuedProvisioning": "BF", "queuedProvisioning.enabled": "AFR",
    "maxPodsPerNode": "AFC", "nodeLocations": "AC", "upgradeSettings": "BC", "upgradeSettings.maxSurge": "AC",
    "upgradeSettings.maxUnavailable": "AC", "upgradeSettings.strategy": "A", "initialNodeCount": "AFC",
    "instanceGroupUrls": "AC", "managedInstanceGroupUrls": "AC", "management": "BC", "management.autoRepair": "A",
    "management.autoUpgrade": "A", "name": "AFC", "namePrefix": "AFC", "nodeCount": "AC", "version": "AC",
    "networkConfig": "BC", "networkConfig.acceleratorNetworkProfile": "AF", "networkConfig.createPodRange": "AF",
    "networkConfig.enablePrivateNodes": "AC", "networkConfig.podRange": "AFC",
    "networkConfig.podIpv4CidrBlock": "AFC", "networkConfig.additionalNodeNetworkConfigs": "BFC",
    "networkConfig.additionalNodeNetworkConfigs.network": "AFC",
    "networkConfig.additionalNodeNetworkConfigs.subnetwork": "AFC", "networkConfig.additionalPodNetworkConfigs": "BF",
    "networkConfig.additionalPodNetworkConfigs.subnetwork": "AF",
    "networkConfig.additionalPodNetworkConfigs.secondaryPodRange": "AF",
    "networkConfig.additionalPodNetworkConfigs.maxPodsPerNode": "AFC",
    "networkConfig.podCidrOverprovisionConfig": "BFC", "networkConfig.podCidrOverprovisionConfig.disabled": "AR",
    "networkConfig.networkPerformanceConfig": "B",
    "networkConfig.networkPerformanceConfig.totalEgressBandwidthTier": "AR", "networkConfig.subnetwork": "AFC",
    "nodeDrainConfigs": "BC", "nodeDrainConfigs.graceTerminationDuration": "A",
    "nodeDrainConfigs.pdbTimeoutDuration": "A", "nodeDrainConfigs.respectPdbDuringNodePoolDeletion": "A",
    "ignoreNodeCountChanges": "A", "maintenancePolicies": "B", "maintenancePolicies.exclusionUntilEndOfSupports": "B",
    "maintenancePolicies.exclusionUntilEndOfSupports.enabled": "A",
    "maintenancePolicies.exclusionUntilEndOfSupports.startTime": "AC",
    "maintenancePolicies.exclusionUntilEndOfSupports.endTime": "AC",
})

# --- google_container_cluster (ResourceContainerCluster; its node_config is schemaNodeConfig, below) -----------
_CLUSTER_TOP: Mapping[str, str] = MappingProxyType({
    "name": "AFR", "operation": "AC", "location": "AFC", "nodeLocations": "AC", "deletionProtection": "A",
    "addonsConfig": "BC", "addonsConfig.httpLoadBalancing": "BC", "addonsConfig.httpLoadBalancing.disabled": "AR",
    "addonsConfig.horizontalPodAutoscaling": "BC", "addonsConfig.horizontalPodAutoscaling.disabled": "AR",
    "addonsConfig.networkPolicyConfig": "BC", "addonsConfig.networkPolicyConfig.disabled": "AR",
    "addonsConfig.gcpFilestoreCsiDriverConfig": "BC", "addonsConfig.gcpFilestoreCsiDriverConfig.enabled": "AR",
    "addonsConfig.cloudrunConfig": "BC", "addonsConfig.cloudrunConfig.disabled": "AR",
    "addonsConfig.cloudrunConfig.loadBalancerType": "A", "addonsConfig.dnsCacheConfig": "BC",
    "addonsConfig.dnsCacheConfig.enabled": "AR", "addonsConfig.gcePersistentDiskCsiDriverConfig": "BC",
    "addonsConfig.gcePersistentDiskCsiDriverConfig.enabled": "AR", "addonsConfig.gkeBackupAgentConfig": "BC",
    "addonsConfig.gkeBackupAgentConfig.enabled": "AR", "addonsConfig.gcsFuseCsiDriverConfig": "BC",
    "addonsConfig.gcsFuseCsiDriverConfig.enabled": "AR", "addonsConfig.parallelstoreCsiDriverConfig": "BC",
    "addonsConfig.parallelstoreCsiDriverConfig.enabled": "AR", "addonsConfig.lustreCsiDriverConfig": "BC",
    "addonsConfig.lustreCsiDriverConfig.enabled": "AR",
    "addonsConfig.lustreCsiDriverConfig.enableLegacyLustrePort": "A",
    "addonsConfig.lustreCsiDriverConfig.disableMultiNic": "A", "addonsConfig.podSnapshotConfig": "BC",
    "addonsConfig.podSnapshotConfig.enabled": "AR", "addonsConfig.istioConfig": "BC",
    "addonsConfig.istioConfig.disabled": "AR", "addonsConfig.istioConfig.auth": "A", "addonsConfig.kalmConfig": "BC",
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
    "clusterAutoscaling": "BC", "clusterAutoscaling.enabled": "AC", "clusterAutoscaling.resourceLimits": "BC",
    "clusterAutoscaling.resourceLimits.resourceType": "AR", "clusterAutoscaling.resourceLimits.minimum": "A",
    "clusterAutoscaling.resourceLimits.maximum": "AR", "clusterAutoscaling.autoProvisioningDefaults": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.oauthScopes": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.serviceAccount": "A",
    "clusterAutoscaling.autoProvisioningDefaults.diskSize": "A",
    "clusterAutoscaling.autoProvisioningDefaults.diskType": "A",
    "clusterAutoscaling.autoProvisioningDefaults.imageType": "A",
    "clusterAutoscaling.autoProvisioningDefaults.minCpuPlatform": "A",
    "clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey": "AF",
    "clusterAutoscaling.autoProvisioningDefaults.shieldedInstanceConfig": "B",
    "clusterAutoscaling.autoProvisioningDefaults.shieldedInstanceConfig.enableSecureBoot": "A",
    "clusterAutoscaling.autoProvisioningDefaults.shieldedInstanceConfig.enableIntegrityMonitoring": "A",
    "clusterAutoscaling.autoProvisioningDefaults.management": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.management.autoUpgrade": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.management.autoRepair": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.management.upgradeOptions": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.management.upgradeOptions.autoUpgradeStartTime": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.management.upgradeOptions.description": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.maxSurge": "A",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.maxUnavailable": "A",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.strategy": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings.nodePoolSoakDuration": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings.standardRolloutPolicy": "BC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchPercentage": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchNodeCount": "AC",
    "clusterAutoscaling.autoProvisioningDefaults.upgradeSettings.blueGreenSettings.standardRolloutPolicy.batchSoakDuration": "A",
    "clusterAutoscaling.autoProvisioningLocations": "AC", "clusterAutoscaling.autoscalingProfile": "A",
    "clusterAutoscaling.defaultComputeClassEnabled": "A", "clusterIpv4Cidr": "AFC", "description": "AF",
    "binaryAuthorization": "B", "binaryAuthorization.enabled": "A", "binaryAuthorization.evaluationMode": "AC",
    "enableKubernetesAlpha": "AF", "enableK8sBetaApis": "B", "enableK8sBetaApis.enabledApis": "AR",
    "enableTpu": "AFC", "tpuConfig": "BC", "tpuConfig.enabled": "AFR", "tpuConfig.ipv4CidrBlock": "AC",
    "tpuConfig.useServiceNetworking": "AF", "enableLegacyAbac": "A", "enableShieldedNodes": "A",
    "enableAutopilot": "AF", "allowNetAdmin": "A",
    "authenticatorGroupsConfig": "BC", "authenticatorGroupsConfig.securityGroup": "AR", "initialNodeCount": "AF",
    "loggingConfig": "BC", "loggingConfig.enableComponents": "AR", "loggingService": "AC", "rollbackSafeUpgrade": "B",
    "rollbackSafeUpgrade.controlPlaneSoakDuration": "A", "desiredEmulatedVersion": "A", "emulatedVersion": "AC",
    "maintenancePolicy": "B", "maintenancePolicy.dailyMaintenanceWindow": "B",
    "maintenancePolicy.dailyMaintenanceWindow.startTime": "AR",
    "maintenancePolicy.dailyMaintenanceWindow.duration": "AC", "maintenancePolicy.recurringWindow": "B",
    "maintenancePolicy.recurringWindow.startTime": "AR", "maintenancePolicy.recurringWindow.endTime": "AR",
    "maintenancePolicy.recurringWindow.recurrence": "AR", "maintenancePolicy.recurringMaintenanceWindow": "B",
    "maintenancePolicy.recurringMaintenanceWindow.delayUntil": "B",
    "maintenancePolicy.recurringMaintenanceWindow.delayUntil.year": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.delayUntil.month": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.delayUntil.day": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.windowDuration": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.windowStartTime": "BR",
    "maintenancePolicy.recurringMaintenanceWindow.windowStartTime.hours": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.windowStartTime.minutes": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.windowStartTime.seconds": "AR",
    "maintenancePolicy.recurringMaintenanceWindow.recurrence": "AR", "maintenancePolicy.maintenanceExclusions": "B",
    "maintenancePolicy.maintenanceExclusions.exclusionName": "AR",
    "maintenancePolicy.maintenanceExclusions.startTime": "AR", "maintenancePolicy.maintenanceExclusions.endTime": "A",
    "maintenancePolicy.maintenanceExclusions.exclusionOptions": "B",
    "maintenancePolicy.maintenanceExclusions.exclusionOptions.endTimeBehavior": "A",
    "maintenancePolicy.maintenanceExclusions.exclusionOptions.scope": "AR", "maintenancePolicy.disruptionBudget": "B",
    "maintenancePolicy.disruptionBudget.minorVersionDisruptionInterval": "A",
    "maintenancePolicy.disruptionBudget.patchVersionDisruptionInterval": "A",
    "maintenancePolicy.disruptionBudget.lastMinorVersionDisruptionTime": "AC",
    "maintenancePolicy.disruptionBudget.lastDisruptionTime": "AC", "protectConfig": "BC",
    "protectConfig.workloadConfig": "BC", "protectConfig.workloadConfig.auditMode": "AR",
    "protectConfig.workloadVulnerabilityMode": "AC", "securityPostureConfig": "BC",
    "securityPostureConfig.mode": "AC", "securityPostureConfig.vulnerabilityMode": "AC",
    "managedMachineLearningDiagnosticsConfig": "BC", "managedMachineLearningDiagnosticsConfig.enabled": "A",
    "monitoringConfig": "BC", "monitoringConfig.enableComponents": "AC", "monitoringConfig.managedPrometheus": "BC",
    "monitoringConfig.managedPrometheus.enabled": "AR",
    "monitoringConfig.managedPrometheus.autoMonitoringConfig": "BC",
    "monitoringConfig.managedPrometheus.autoMonitoringConfig.scope": "AR",
    "monitoringConfig.advancedDatapathObservabilityConfig": "BC",
    "monitoringConfig.advancedDatapathObservabilityConfig.enableMetrics": "AR",
    "monitoringConfig.advancedDatapathObservabilityConfig.enableRelay": "AR", "notificationConfig": "BC",
    "notificationConfig.pubsub": "BR", "notificationConfig.pubsub.enabled": "AR",
    "notificationConfig.pubsub.topic": "A", "notificationConfig.pubsub.filter": "B",
    "notificationConfig.pubsub.filter.eventTypes": "AR", "confidentialNodes": "BFC",
    "confidentialNodes.enabled": "AFR", "confidentialNodes.confidentialInstanceType": "AF", "masterAuth": "BC",
    "masterAuth.clientCertificateConfig": "BFR", "masterAuth.clientCertificateConfig.issueClientCertificate": "AFR",
    "masterAuth.clientCertificate": "AC", "masterAuth.clientKey": "AC", "masterAuth.clusterCaCertificate": "AC",
    "masterAuthorizedNetworksConfig": "AC", "minMasterVersion": "A", "monitoringService": "AC", "network": "AF",
    "networkPolicy": "B", "networkPolicy.enabled": "AR", "networkPolicy.provider": "A", "nodePoolAutoConfig": "BC",
    "nodePoolAutoConfig.nodeKubeletConfig": "B",
    "nodePoolAutoConfig.nodeKubeletConfig.insecureKubeletReadonlyPortEnabled": "A",
    "nodePoolAutoConfig.linuxNodeConfig": "B", "nodePoolAutoConfig.linuxNodeConfig.cgroupMode": "AC",
    "nodePoolAutoConfig.linuxNodeConfig.nodeKernelModuleLoading": "B",
    "nodePoolAutoConfig.linuxNodeConfig.nodeKernelModuleLoading.policy": "A", "nodePoolAutoConfig.networkTags": "B",
    "nodePoolAutoConfig.networkTags.tags": "A", "nodePoolAutoConfig.resourceManagerTags": "A", "nodeVersion": "AC",
    "podSecurityPolicyConfig": "B", "podSecurityPolicyConfig.enabled": "AR", "podAutoscaling": "BC",
    "podAutoscaling.hpaProfile": "AR", "secretManagerConfig": "B", "secretManagerConfig.enabled": "AR",
    "secretManagerConfig.rotationConfig": "BC", "secretManagerConfig.rotationConfig.enabled": "AR",
    "secretManagerConfig.rotationConfig.rotationInterval": "AC", "secretSyncConfig": "B",
    "secretSyncConfig.enabled": "AR", "secretSyncConfig.rotationConfig": "BC",
    "secretSyncConfig.rotationConfig.enabled": "AR", "secretSyncConfig.rotationConfig.rotationInterval": "AC",
    "project": "AFC", "subnetwork": "AFC", "selfLink": "AC", "endpoint": "AC", "masterVersion": "AC",
    "servicesIpv4Cidr": "AC", "ipAllocationPolicy": "BFC", "ipAllocationPolicy.clusterIpv4CidrBlock": "AFC",
    "ipAllocationPolicy.servicesIpv4CidrBlock": "AFC", "ipAllocationPolicy.clusterSecondaryRangeName": "AFC",
    "ipAllocationPolicy.servicesSecondaryRangeName": "AFC", "ipAllocationPolicy.stackType": "A",
    "ipAllocationPolicy.podCidrOverprovisionConfig": "BFC",
    "ipAllocationPolicy.podCidrOverprovisionConfig.disabled": "AR",
    "ipAllocationPolicy.additionalPodRangesConfig": "B",
    "ipAllocationPolicy.additionalPodRangesConfig.podRangeNames": "AR",
    "ipAllocationPolicy.additionalIpRangesConfigs": "B",
    "ipAllocationPolicy.additionalIpRangesConfigs.subnetwork": "AR",
    "ipAllocationPolicy.additionalIpRangesConfigs.podIpv4RangeNames": "A",
    "ipAllocationPolicy.additionalIpRangesConfigs.status": "A", "ipAllocationPolicy.autoIpamConfig": "BC",
    "ipAllocationPolicy.autoIpamConfig.enabled": "AR", "ipAllocationPolicy.networkTierConfig": "BC",
    "ipAllocationPolicy.networkTierConfig.networkTier": "AR", "managedOpentelemetryConfig": "BC",
    "managedOpentelemetryConfig.scope": "A", "networkingMode": "AFC", "removeDefaultNodePool": "A",
    "skipNodePoolRefresh": "A", "controlPlaneEndpointsConfig": "BC",
    "controlPlaneEndpointsConfig.dnsEndpointConfig": "BC",
    "controlPlaneEndpointsConfig.dnsEndpointConfig.endpoint": "AC",
    "controlPlaneEndpointsConfig.dnsEndpointConfig.allowExternalTraffic": "A",
    "controlPlaneEndpointsConfig.dnsEndpointConfig.enableK8sTokensViaDns": "A",
    "controlPlaneEndpointsConfig.dnsEndpointConfig.enableK8sCertsViaDns": "A",
    "controlPlaneEndpointsConfig.ipEndpointsConfig": "BC",
    "controlPlaneEndpointsConfig.ipEndpointsConfig.enabled": "A", "privateClusterConfig": "BC",
    "privateClusterConfig.enablePrivateEndpoint": "A", "privateClusterConfig.enablePrivateNodes": "A",
    "privateClusterConfig.masterIpv4CidrBlock": "AFC", "privateClusterConfig.peeringName": "AC",
    "privateClusterConfig.privateEndpoint": "AC", "privateClusterConfig.privateEndpointSubnetwork": "AF",
    "privateClusterConfig.publicEndpoint": "AC", "privateClusterConfig.masterGlobalAccessConfig": "BC",
    "privateClusterConfig.masterGlobalAccessConfig.enabled": "AR", "resourceLabels": "A",
    "effectiveLabels": "AC", "labelFingerprint": "AC", "defaultMaxPodsPerNode": "AFC", "verticalPodAutoscaling": "BC",
    "verticalPodAutoscaling.enabled": "AR", "workloadIdentityConfig": "BC",
    "workloadIdentityConfig.workloadPool": "A", "identityServiceConfig": "BC", "identityServiceConfig.enabled": "A",
    "serviceExternalIpsConfig": "BC", "serviceExternalIpsConfig.enabled": "AR", "meshCertificates": "BC",
    "meshCertificates.enableCertificates": "AR", "databaseEncryption": "BC", "databaseEncryption.state": "AR",
    "databaseEncryption.keyName": "A", "releaseChannel": "BC", "releaseChannel.channel": "AR",
    "gkeAutoUpgradeConfig": "BC", "gkeAutoUpgradeConfig.patchMode": "AR", "tpuIpv4CidrBlock": "AC",
    "clusterTelemetry": "BC", "clusterTelemetry.type": "AR", "defaultSnatStatus": "BC",
    "defaultSnatStatus.disabled": "AR", "datapathProvider": "AFC", "dataplaneOptimizationMode": "AF",
    "enableCiliumClusterwideNetworkPolicy": "A", "enableIntranodeVisibility": "AC", "enableL4IlbSubsetting": "AC",
    "disableL4LbFirewallReconciliation": "A", "enableMultiNetworking": "A", "enableFqdnNetworkPolicy": "A",
    "privateIpv6GoogleAccess": "AC", "costManagementConfig": "BC", "costManagementConfig.enabled": "AR",
    "resourceUsageExportConfig": "B", "resourceUsageExportConfig.enableNetworkEgressMetering": "A",
    "resourceUsageExportConfig.enableResourceConsumptionMetering": "A",
    "resourceUsageExportConfig.bigqueryDestination": "BR",
    "resourceUsageExportConfig.bigqueryDestination.datasetId": "AR", "dnsConfig": "B",
    "dnsConfig.additiveVpcScopeDnsDomain": "A", "dnsConfig.clusterDns": "A", "dnsConfig.clusterDnsScope": "A",
    "dnsConfig.clusterDnsDomain": "A", "gatewayApiConfig": "BC", "gatewayApiConfig.channel": "AR", "fleet": "B",
    "fleet.project": "A", "fleet.membership": "AC", "fleet.preRegistered": "AC", "fleet.membershipId": "AC",
    "fleet.membershipLocation": "AC", "fleet.membershipType": "A", "userManagedKeysConfig": "B",
    "userManagedKeysConfig.clusterCa": "AF", "userManagedKeysConfig.etcdApiCa": "AF",
    "userManagedKeysConfig.etcdPeerCa": "AF", "userManagedKeysConfig.aggregationCa": "AF",
    "userManagedKeysConfig.serviceAccountSigningKeys": "A",
    "userManagedKeysConfig.serviceAccountVerificationKeys": "A",
    "userManagedKeysConfig.controlPlaneDiskEncryptionKey": "A",
    "userManagedKeysConfig.controlPlaneDiskEncryptionKeyVersions": "AC",
    "userManagedKeysConfig.gkeopsEtcdBackupEncryptionKey": "A", "workloadAltsConfig": "BC",
    "workloadAltsConfig.enableAlts": "AR", "enterpriseConfig": "BC", "enterpriseConfig.clusterTier": "AC",
    "enterpriseConfig.desiredTier": "AC", "inTransitEncryptionConfig": "A", "networkPerformanceConfig": "B",
    "networkPerformanceConfig.totalEgressBandwidthTier": "AR", "anonymousAuthenticationConfig": "BC",
    "anonymousAuthenticationConfig.mode": "AR", "nodeCreationConfig": "BC",
    "nodeCreationConfig.nodeCreationMode": "AR", "rbacBindingConfig": "BC",
    "rbacBindingConfig.enableInsecureBindingSystemUnauthenticated": "A",
    "rbacBindingConfig.enableInsecureBindingSystemAuthenticated": "A", "autopilotClusterPolicyConfig": "BC",
    "autopilotClusterPolicyConfig.noSystemMutation": "A", "autopilotClusterPolicyConfig.noSystemImpersonation": "A",
    "autopilotClusterPolicyConfig.noUnsafeWebhooks": "A", "autopilotClusterPolicyConfig.noStandardNodePools": "A",
    "deletionPolicy": "A", "ignoreNodeCountChanges": "A",
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
