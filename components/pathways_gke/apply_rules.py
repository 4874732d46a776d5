"""What the world does with a create, an edit and a destroy: the apply-outcome model, written once.

`pulumi up` is decided by four parties, and each has rules the offline plan must follow to tell the truth:

- the **providers** (pulumi-gcp bridges terraform-provider-google; pulumi-kubernetes): which changed inputs
  replace a resource (force-new) and which replacements delete first;
- **GKE and the Kubernetes API**: updates the provider sends as updates but the server refuses;
- the **admission webhooks** of JobSet, LeaderWorkerSet and Kueue: updates of custom resources they refuse;
- the **Pulumi engine**: replaceOnChanges, replaceWith, provider replacement, the delete-before-replace cascade
  over property dependencies, protect (refuses replace and delete), retainOnDelete / protect inherited from the
  parent, aliases.

Every rule is a `WorldRule` (who enforces it, what it does, its primary source, the way out) in `RULES`, and the
tables and functions below apply them to plain resource inputs. plan/diff.py turns them into per-resource
verdicts; the components read the webhook tables to replace what would otherwise be refused. Pure: no Pulumi
import (a facts module: tests/test_layers.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import tokens
from .naming import QUEUE_NAME_LABEL, SERVICES_CONFIGMAP
from .releases import RELEASES, release_change
from .property_paths import Part, covers, format_path, parse_path, value_at

# --- who decides, and how -------------------------------------------------------------------------------------

PROVIDER = "provider"
GKE = "gke"
KUBERNETES = "kubernetes"
CONTROLLER = "controller"  # a controller release (its CRDs and reconciler), not a webhook
WEBHOOK = "webhook"
ENGINE = "engine"

REPLACE = "replace"  # the change replaces the resource (delete + create)
REFUSE = "refuse"  # the update (or delete) fails on `pulumi up`
CASCADE = "cascade"  # a replacement spreads to other resources
DELETE_FIRST = "delete-first"  # the replacement deletes the old resource before creating the new one
INHERIT = "inherit"  # an option a child inherits from its parent
RELEASE = "release"  # the resource leaves Pulumi's management; nothing in the cloud changes


@dataclass(frozen=True)
class WorldRule:
    id: str
    actor: str  # PROVIDER | GKE | KUBERNETES | WEBHOOK | ENGINE
    effect: str  # REPLACE | REFUSE | CASCADE | DELETE_FIRST | INHERIT
    rule: str  # what happens, and when
    source: str  # primary source (repository + path, or documentation URL)
    way_out: str = ""  # what the user does instead (for refusals)


TFG = "hashicorp/terraform-provider-google"
PK = "pulumi/pulumi-kubernetes"
P = "pulumi/pulumi"

RULES: tuple[WorldRule, ...] = (
    # providers
    WorldRule("gcp-force-new", PROVIDER, REPLACE,
              "a change of a ForceNew field of a GCP resource (node pool placement policy, spot, service account, "
              "a cluster's network or location, every field of a resource policy, ...) replaces it",
              f"{TFG} google/services/container/resource_container_node_pool.go, resource_container_cluster.go, "
              "node_config.go (ForceNew: true); pulumi/pulumi-gcp#412"),
    WorldRule("k8s-force-new", PROVIDER, REPLACE,
              "pulumi-kubernetes replaces an object whose metadata.name or metadata.namespace changes, and on the "
              "fields of its forceNew table: Service spec.clusterIP (spec.type updates in place), Deployment "
              "spec.selector, Job spec.template/selector/completions/parallelism, RoleBinding roleRef, ConfigMap "
              "data, Secret data/stringData/type; for custom resources (JobSet, LeaderWorkerSet) only the name "
              "and namespace",
              f"{PK} provider/pkg/provider/diff.go (forceNew, forceNewProperties)"),
    WorldRule("k8s-named-delete-first", PROVIDER, DELETE_FIRST,
              "pulumi-kubernetes replaces an object that keeps its name and namespace delete-first (the new one "
              "cannot exist beside the old)",
              f"{PK} provider/pkg/provider/provider.go (Diff: deleteBeforeReplace when not auto-named and the "
              "name and namespace are unchanged)"),
    WorldRule("k8s-provider-identity", PROVIDER, REPLACE,
              "a Kubernetes provider with a clusterIdentifier is replaced only when the identifier changes "
              "(without one: a new kubeconfig, context or cluster); a replaced provider replaces every object "
              "it manages",
              f"{PK} provider/pkg/provider/provider.go (DiffConfig, clusterIdentifier); {P}#8991"),
    # GKE
    WorldRule("gke-dns-scope", GKE, REFUSE,
              "GKE cannot change a cluster's Cloud DNS mode or scope in place; terraform-provider-google sends a "
              "dnsConfig change as an update (DesiredDnsConfig), so `pulumi up` fails",
              "https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-dns (limitations); "
              f"{TFG} resource_container_cluster.go (dns_config update)",
              "this needs a new cluster: keep cluster.dns at the mode the cluster was created with "
              "(set it explicitly instead of `auto`), or re-create the cluster"),
    # webhooks
    WorldRule("jobset-spec-immutable", WEBHOOK, REFUSE,
              "JobSet's webhook refuses updates of spec.replicatedJobs (and the rest of the spec but suspend and, "
              "while suspended, the pod templates); pathways-gke JobSets are replaced on any spec change "
              "(replaceOnChanges: spec)",
              "kubernetes-sigs/jobset pkg/webhooks/jobset_webhook.go (ValidateUpdate)",
              "replace the JobSet (replaceOnChanges: [\"spec\"]) or delete the workload first"),
    WorldRule("lws-immutable", WEBHOOK, REFUSE,
              "LeaderWorkerSet's webhook refuses adding, removing or resizing subGroupPolicy, and (before v0.7.0) "
              "changing size; pathways-gke replaces the LWS on those paths",
              "kubernetes-sigs/lws pkg/webhooks/leaderworkerset_webhook.go (ValidateUpdate)",
              "replace the LeaderWorkerSet (replaceOnChanges) or delete the workload first"),
    WorldRule("kueue-lws-queue-name", WEBHOOK, REFUSE,
              f"with Kueue, the `{QUEUE_NAME_LABEL}` label of a LeaderWorkerSet cannot be added, removed or "
              "changed (turning Kueue on or off for a serving workload)",
              "kubernetes-sigs/kueue pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go (ValidateUpdate)",
              "delete the workload first (remove it, `pulumi up`, add it back); pathways-gke replaces it"),
    WorldRule("kueue-lws-pod-template", WEBHOOK, REFUSE,
              f"while a LeaderWorkerSet carries `{QUEUE_NAME_LABEL}`, the leader and worker pod templates' "
              "container ports and resources, nodeSelector, affinity and tolerations are immutable (and a leader "
              "template cannot be added or removed)",
              "kubernetes-sigs/kueue pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go "
              "(validateImmutablePodTemplateSpec); pkg/controller/jobframework/validation.go (ValidateImmutablePodSpec)",
              "delete the workload first; pathways-gke replaces it (replaceOnChanges on these paths)"),
    WorldRule("kueue-lws-startup-policy", WEBHOOK, REFUSE,
              f"with `{QUEUE_NAME_LABEL}` a LeaderWorkerSet may only use the LeaderCreated startup policy (on "
              "create and update)",
              "kubernetes-sigs/kueue pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go (validateStartupPolicy)",
              "use startupPolicy LeaderCreated, or run the serving workload without Kueue"),
    WorldRule("kueue-jobset-queue-name", WEBHOOK, REFUSE,
              f"with Kueue, the `{QUEUE_NAME_LABEL}` label of a running (unsuspended) JobSet is immutable",
              "kubernetes-sigs/kueue pkg/controller/jobs/jobset/jobset_webhook.go (validateUpdate -> "
              "jobframework.ValidateJobOnUpdate); pkg/controller/jobframework/validation.go",
              "delete the workload first; pathways-gke replaces the JobSet on a queue-name change"),
    # the controllers' releases
    WorldRule("controller-downgrade", CONTROLLER, REFUSE,
              "moving a JobSet, Kueue or LeaderWorkerSet pin back to an older minor release: the older CRDs prune "
              "the fields the newer release wrote into stored objects and the older controller cannot reconcile "
              "them (Kueue supports upgrades only, one minor at a time); a patch move within one minor is allowed",
              "releases.release_change; https://github.com/kubernetes-sigs/kueue/releases (\"Actions Required "
              "Before Upgrading\"); https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/"
              "custom-resource-definition-versioning/ (pruning of unknown fields)",
              "keep the newer release (or move to a newer one), or delete that controller's objects and its "
              "release first"),
    # the engine
    WorldRule("replace-on-changes", ENGINE, REPLACE,
              "a change under a resource's own replaceOnChanges paths replaces it",
              f"{P} pkg/resource/deploy/step_generator.go (applyReplaceOnChanges)"),
    WorldRule("replace-with", ENGINE, CASCADE,
              "a resource is replaced when a resource in its replaceWith is replaced (engine >= 3.207.0)",
              f"{P} CHANGELOG 3.207.0; pkg/resource/deploy/step_generator.go"),
    WorldRule("provider-replaced", ENGINE, CASCADE,
              "every resource managed by a replaced provider is replaced with it",
              f"{P} pkg/resource/deploy/step_generator.go (calculateDependentReplacements: provider in the "
              "replace set)"),
    WorldRule("delete-before-replace-cascade", ENGINE, CASCADE,
              "when a resource is replaced delete-first, every dependent with a property dependency on it is "
              "re-diffed with those inputs unknown and replaced when such an input forces replacement (a "
              "replaced cluster replaces every node pool; a replaced tpu7x workload policy replaces its pool)",
              f"{P} pkg/resource/deploy/step_generator.go (calculateDependentReplacements); "
              f"{P}#19056 (replaceOnChanges counts)"),
    WorldRule("protect-replace", ENGINE, REFUSE,
              "a resource protected in the state and in the program cannot be replaced, also not as a cascaded "
              "dependent (\"unable to replace resource … as it is currently marked for protection\"); "
              "unprotecting and replacing in one update is allowed",
              f"{P} pkg/resource/deploy/step_generator.go (new.Protect && old.Protect)",
              "unprotect first (cluster.protect: false / protect=False), then make the change"),
    WorldRule("protect-delete", ENGINE, REFUSE,
              "a resource protected in the state cannot be deleted (removed from the program or destroyed)",
              f"{P} pkg/resource/deploy/step.go (DeleteStep.Apply)",
              "unprotect first (`pulumi up` with protect off, or `pulumi state unprotect <urn>`), then remove it"),
    WorldRule("retain-on-delete-409", ENGINE, REFUSE,
              "a retainOnDelete resource is not deleted; replacing one delete-first under the same fixed name "
              "leaves the old object in place and the create fails with 409 AlreadyExists",
              f"{P} pkg/resource/deploy/step.go (DeleteStep: RetainOnDelete skips the provider Delete)",
              "set retainOnDelete false on it first, or give the successor another name"),
    WorldRule("inherit-from-parent", ENGINE, INHERIT,
              "protect, retainOnDelete and deletedWith are inherited by children that leave them unset",
              f"{P} pkg/resource/deploy/source_eval.go (inheritFromParent); sdk/python/lib/pulumi/resource.py"),
    WorldRule("relinquish", ENGINE, RELEASE,
              "a managed resource the program now reads under the same URN and ID (a node pool of a tpuPools group "
              "set to create: false; the provider's id and the read's are both projects/P/locations/L/clusters/C/"
              "nodePools/NAME) is relinquished: released from Pulumi's management, not deleted",
              f"{P} pkg/resource/deploy/step_generator.go (GenerateReadSteps: \"relinquish\"); TFB "
              "google-beta/services/container/resource_container_node_pool.go (create: the id)"),
    WorldRule("read-to-managed", ENGINE, REFUSE,
              "a resource the program read (an existing node pool, create: false) that it now creates under the same "
              "name is a create of something that exists: the provider looks it up first and fails (\"resource - "
              "projects/…/nodePools/NAME - already exists\")",
              f"{P} pkg/resource/deploy/step_generator.go (a read is External; a new registration creates); TFB "
              "google-beta/services/container/resource_container_node_pool.go (resourceContainerNodePoolCreate)",
              "import it first (`pulumi import gcp:container/nodePool:NodePool <urn name> "
              "projects/P/locations/L/clusters/C/nodePools/NAME`), or keep create: false"),
    WorldRule("alias", ENGINE, CASCADE,
              "a resource whose alias names an old URN is that resource renamed (no delete, no create); without an "
              "alias a renamed resource is deleted and created again",
              f"{P} pkg/resource/deploy/step_generator.go (aliases)"),
)
RULES_BY_ID: Mapping[str, WorldRule] = MappingProxyType({r.id: r for r in RULES})

# --- force-new (the providers' replace tables) -----------------------------------------------------------------

ANY_INPUT = ("*",)

# Node pools: ForceNew in google_container_node_pool and its node_config schema (TFB v7.x). Updated in place,
# NOT listed: nodeCount, autoscaling, nodeLocations, version, management, upgradeSettings,
# nodeConfig.{machineType, diskSizeGb, diskType} (in place since magic-modules#9575; GKE re-creates every node:
# NODES_RECREATED), nodeConfig.{labels, resourceLabels, taints, tags, imageType, workloadMetadataConfig,
# gcfsConfig, kubeletConfig, linuxNodeConfig, loggingVariant}.
NODE_POOL_FORCE_NEW = (
    "name", "namePrefix", "project", "location", "cluster",
    "initialNodeCount",                         # pulumi-gcp#412
    "maxPodsPerNode",
    "placementPolicy",                          # type, tpuTopology, policyName: a TPU slice's shape
    "queuedProvisioning",
    "bestEffortProvisioning",                   # "either change recreates the node pool" (provider docs)
    "networkConfig.createPodRange", "networkConfig.podRange", "networkConfig.podIpv4CidrBlock",
    "networkConfig.additionalNodeNetworkConfigs", "networkConfig.additionalPodNetworkConfigs",
    "networkConfig.podCidrOverprovisionConfig", "networkConfig.acceleratorNetworkProfile",
    "nodeConfig.spot", "nodeConfig.preemptible", "nodeConfig.flexStart", "nodeConfig.maxRunDuration",
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

# GKE clusters: ForceNew in google_container_cluster (the ones a stack can reach).
CLUSTER_FORCE_NEW = (
    "name", "project", "location", "network", "subnetwork", "description",
    "clusterIpv4Cidr", "ipAllocationPolicy", "networkingMode", "defaultMaxPodsPerNode",
    "enableAutopilot", "enableKubernetesAlpha", "enableTpu", "datapathProvider",
    "initialNodeCount", "nodeConfig",
    "privateClusterConfig.masterIpv4CidrBlock", "privateClusterConfig.privateEndpointSubnetwork",
)

# Every Kubernetes object: a new name, namespace, kind or group/version is a different object (pulumi-kubernetes
# metadataForceNewProperties; a new kind or apiVersion is a new type token, so a new URN).
K8S_IDENTITY = ("apiVersion", "kind", "metadata.name", "metadata.namespace")

_LABEL_SELECTOR = ("spec.selector",)  # with its matchLabels / matchExpressions

# pulumi-kubernetes' forceNew table (provider/pkg/provider/diff.go), for the kinds pathways-gke emits.
K8S_FORCE_NEW: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.DEPLOYMENT: _LABEL_SELECTOR,
    tokens.JOB: ("spec.completions", "spec.parallelism", "spec.template", *_LABEL_SELECTOR),
    tokens.SERVICE: ("spec.clusterIP",),  # spec.type updates in place
    tokens.ROLE_BINDING: ("roleRef",),
    tokens.CONFIG_MAP: ("binaryData", "data"),
    tokens.SECRET: ("type", "stringData", "data"),
})

REPLACE_PATHS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: NODE_POOL_FORCE_NEW,
    tokens.GKE_CLUSTER: CLUSTER_FORCE_NEW,
    tokens.SERVICE_ACCOUNT: ("accountId", "project"),
    tokens.PROJECT_IAM_MEMBER: ("project", "role", "member", "condition"),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: ("serviceAccountId", "role", "member", "condition"),
    tokens.BUCKET_IAM_MEMBER: ("bucket", "role", "member", "condition"),
    tokens.BUCKET: ("name", "project", "location"),
    tokens.RESOURCE_POLICY: ANY_INPUT,  # resource policies are immutable
    # google_compute_firewall: name, network, direction, project are ForceNew
    tokens.FIREWALL: ("name", "project", "network", "direction"),
    tokens.ROUTER: ("name", "project", "region", "network"),
    tokens.ROUTER_NAT: ("name", "project", "region", "router"),
    # Only a new clusterIdentifier replaces the provider (pulumi-kubernetes provider.go); without one a new
    # kubeconfig/context/cluster does too (provider replacement cascades: pulumi/pulumi#8991).
    tokens.KUBERNETES_PROVIDER: ("clusterIdentifier",),
})
K8S_PROVIDER_WITHOUT_IDENTIFIER = ("kubeconfig", "context", "cluster")

# In-place updates that still re-create every node of the pool (GKE rolls the nodes): on a TPU slice that ends
# the running job just like a replacement does.
NODES_RECREATED: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: ("nodeConfig.machineType", "nodeConfig.diskSizeGb", "nodeConfig.diskType", "nodeConfig.imageType",
                       "nodeConfig.bootDisk", "version"),
})


def is_k8s_object(type_: str, inputs: Mapping[str, Any]) -> bool:
    """A Kubernetes object (not a pulumi-kubernetes component such as a yaml/v2 ConfigFile)."""
    return tokens.is_kubernetes_type(type_) and "apiVersion" in inputs


def replace_patterns(resource_type: str, new_inputs: Mapping[str, Any]) -> tuple[str, ...]:
    """The provider's replace-forcing input patterns of a resource (empty when none are known)."""
    if is_k8s_object(resource_type, new_inputs):
        return K8S_IDENTITY + K8S_FORCE_NEW.get(resource_type, ())
    patterns = REPLACE_PATHS.get(resource_type, ())
    if resource_type == tokens.KUBERNETES_PROVIDER and not new_inputs.get("clusterIdentifier"):
        patterns = patterns + K8S_PROVIDER_WITHOUT_IDENTIFIER
    return patterns


def provider_deletes_first(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> bool:
    """pulumi-kubernetes replaces a named object that keeps its name and namespace delete-first."""
    if not is_k8s_object(resource_type, new_inputs):
        return False
    name = value_at(new_inputs, "metadata.name")
    return (isinstance(name, str) and bool(name) and name == value_at(old_inputs, "metadata.name")
            and value_at(new_inputs, "metadata.namespace") == value_at(old_inputs, "metadata.namespace"))


def forces_replace(patterns: Iterable[str], key: str) -> bool:
    """Does an unknown top-level input `key` force replacement under these patterns (the DBR re-diff)?"""
    return any(covers(parse_path(p), (key,)) for p in patterns)


# --- updates the server refuses -----------------------------------------------------------------------------------

LWS_TEMPLATES = ("spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate")
# What Kueue's ValidateImmutablePodSpec compares (containers and init containers: ports, resources; the pod's
# nodeSelector, affinity, tolerations).
_POD_SPEC_IMMUTABLE_UNDER_KUEUE = ("containers[*].ports", "containers[*].resources", "initContainers[*].ports",
                                   "initContainers[*].resources", "nodeSelector", "affinity", "tolerations")
QUEUE_NAME_PATH = f'metadata.labels["{QUEUE_NAME_LABEL}"]'


def kueue_lws_immutable_paths() -> tuple[str, ...]:
    """Paths of a LeaderWorkerSet Kueue's webhook refuses to update while the queue-name label is set (and the
    label itself): a LeaderWorkerSet under Kueue lists them in replaceOnChanges."""
    return (QUEUE_NAME_PATH, *(f"{t}.spec.{p}" for t in LWS_TEMPLATES for p in _POD_SPEC_IMMUTABLE_UNDER_KUEUE))


# A JobSet is replaced (delete-first: a fixed name) on any spec change (JobSet's webhook refuses spec updates) and
# on a queue-name change (Kueue's webhook refuses it on a running JobSet): never updated where it would be refused.
JOBSET_REPLACE_ON_CHANGES = ("spec", QUEUE_NAME_PATH)


def lws_kueue_replace_on_changes(lws: Mapping[str, Any]) -> tuple[str, ...]:
    """What a LeaderWorkerSet adds to its replaceOnChanges for Kueue: the queue-name label always (adding or
    removing it is refused), and with the label the pod-template paths Kueue freezes."""
    return kueue_lws_immutable_paths() if queue_name(lws) is not None else (QUEUE_NAME_PATH,)


def queue_name(inputs: Mapping[str, Any]) -> Optional[str]:
    value = value_at(inputs, ("metadata", "labels", QUEUE_NAME_LABEL))
    return value if isinstance(value, str) and value else None


@dataclass(frozen=True)
class Refusal:
    rule: str  # a WorldRule id
    paths: tuple[str, ...]  # the changed paths it refuses

    @property
    def world_rule(self) -> WorldRule:
        return RULES_BY_ID[self.rule]


def _matching(paths: Sequence[tuple[Part, ...]], patterns: Iterable[str]) -> tuple[str, ...]:
    parsed = [parse_path(p) for p in patterns]
    return tuple(format_path(p) for p in paths if any(covers(q, p) for q in parsed))


def update_refusals(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any],
                    paths: Sequence[str]) -> list[Refusal]:
    """The refusals an in-place update of these changed `paths` meets on `pulumi up` (empty: it applies)."""
    parsed = [parse_path(p) for p in paths]
    out: list[Refusal] = []

    def refuse(rule: str, patterns: Iterable[str]) -> None:
        hit = _matching(parsed, patterns)
        if hit:
            out.append(Refusal(rule, hit))

    if resource_type == tokens.GKE_CLUSTER:
        refuse("gke-dns-scope", ("dnsConfig",))
    elif resource_type == tokens.LEADER_WORKER_SET:
        old_q, new_q = queue_name(old_inputs), queue_name(new_inputs)
        if old_q != new_q:
            refuse("kueue-lws-queue-name", (QUEUE_NAME_PATH,))
        if old_q is not None:
            refuse("kueue-lws-pod-template", kueue_lws_immutable_paths()[1:])
            if (value_at(old_inputs, LWS_TEMPLATES[0]) is None) != (value_at(new_inputs, LWS_TEMPLATES[0]) is None):
                refuse("kueue-lws-pod-template", (LWS_TEMPLATES[0],))
        refuse("lws-immutable", ("spec.leaderWorkerTemplate.subGroupPolicy",))
    elif resource_type == tokens.JOBSET:
        if queue_name(old_inputs) != queue_name(new_inputs):
            refuse("kueue-jobset-queue-name", (QUEUE_NAME_PATH,))
        refuse("jobset-spec-immutable", ("spec.replicatedJobs", "spec.network", "spec.successPolicy",
                                         "spec.failurePolicy", "spec.startupPolicy", "spec.managedBy"))
    return out


def release_refusals(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> list[Refusal]:
    """A controller pin moved back past a minor release, read from the readiness ConfigMap, which records each
    installed release as `<addon>.version`. Refused however the ConfigMap itself is applied (updated or, as
    pulumi-kubernetes does on a data change, replaced): the refusal is about the release."""
    if resource_type != tokens.CONFIG_MAP or value_at(new_inputs, "metadata.name") != SERVICES_CONFIGMAP:
        return []
    out = []
    for addon in RELEASES:
        key = ("data", f"{addon}.version")
        before, after = value_at(old_inputs, key), value_at(new_inputs, key)
        if before and after and release_change(addon, before, after).refused:
            out.append(Refusal("controller-downgrade", (format_path(key),)))
    return out


def create_refusals(resource_type: str, inputs: Mapping[str, Any]) -> list[Refusal]:
    """Refusals a create meets (the ones the diff can see on a new object)."""
    if (resource_type == tokens.LEADER_WORKER_SET and queue_name(inputs) is not None
            and value_at(inputs, "spec.startupPolicy") == "LeaderReady"):
        return [Refusal("kueue-lws-startup-policy", ("spec.startupPolicy",))]
    return []


__all__ = [
    "ANY_INPUT", "CASCADE", "CONTROLLER", "DELETE_FIRST", "ENGINE", "GKE", "INHERIT", "K8S_FORCE_NEW", "K8S_IDENTITY",
    "JOBSET_REPLACE_ON_CHANGES", "K8S_PROVIDER_WITHOUT_IDENTIFIER", "KUBERNETES", "NODES_RECREATED", "PROVIDER", "QUEUE_NAME_PATH", "REFUSE",
    "REPLACE", "REPLACE_PATHS", "RULES", "RULES_BY_ID", "Refusal", "WEBHOOK", "WorldRule", "create_refusals",
    "forces_replace", "is_k8s_object", "kueue_lws_immutable_paths", "lws_kueue_replace_on_changes", "provider_deletes_first", "queue_name", "release_refusals",
    "replace_patterns", "update_refusals",
]
