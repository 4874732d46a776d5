"""What the world does with a create, an edit and a destroy: the apply-outcome model, written once.

`pulumi up` is decided by four parties, and each has rules the offline plan must follow to tell the truth:

- the **providers** (pulumi-gcp bridges terraform-provider-google; pulumi-kubernetes): which changed inputs
  replace a resource (force-new) and which replacements delete first;
- **GKE, Cloud Storage and the Kubernetes API**: updates the provider sends as updates but the server refuses
  (and a bucket replaced under its global name);
- the **admission webhooks** of JobSet, LeaderWorkerSet and Kueue: updates of custom resources they refuse;
- the **Pulumi engine**: replaceOnChanges, replaceWith, provider replacement, the delete-before-replace cascade
  over property dependencies, protect (refuses replace and delete), retainOnDelete / protect inherited from the
  parent, aliases.

A fifth kind of rule is this product's own **policy** (actor POLICY): a change the world would apply and
pathways-gke refuses as unsafe (a controller downgrade), always labelled as policy, with the reason, and its own
exit code (docs/ci.md).

Every rule is a `WorldRule` (who enforces it, what it does, its primary source, the way out) in `RULES`, and the
tables and functions below apply them to plain resource inputs. plan/diff.py turns them into per-resource
verdicts; the components read the webhook tables to replace what would otherwise be refused. Pure: no Pulumi
import (a facts module: tests/test_layers.py).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import bridge_schema, tokens
from .naming import KUEUE_FROZEN_SHAPE_ANNOTATION, QUEUE_NAME_LABEL, SERVICES_CONFIGMAP
from .releases import RELEASES, PinChange, release_change
from .property_paths import Part, changed_paths, covers, format_path, parse_path, value_at

# --- who decides, and how -------------------------------------------------------------------------------------

PROVIDER = "provider"
GKE = "gke"
KUBERNETES = "kubernetes"
CONTROLLER = "controller"  # a controller release (its CRDs and reconciler), not a webhook
WEBHOOK = "webhook"
ENGINE = "engine"
STORAGE = "cloud-storage"
POLICY = "pathways-gke policy"  # this product refuses it; the world (API server, webhooks, engine) would apply it

REPLACE = "replace"  # the change replaces the resource (delete + create)
REFUSE = "refuse"  # the update (or delete) fails on `pulumi up`
CASCADE = "cascade"  # a replacement spreads to other resources
DELETE_FIRST = "delete-first"  # the replacement deletes the old resource before creating the new one
INHERIT = "inherit"  # an option a child inherits from its parent
RELEASE = "release"  # the resource leaves Pulumi's management; nothing in the cloud changes


@dataclass(frozen=True)
class WorldRule:
    """A rule of the world (or, with actor POLICY, of this product) with its source and, for a refusal, the way out."""

    id: str
    actor: str  # PROVIDER | GKE | KUBERNETES | WEBHOOK | ENGINE
    effect: str  # REPLACE | REFUSE | CASCADE | DELETE_FIRST | INHERIT
    rule: str  # what happens, and when
    source: str  # primary source (repository + path, or documentation URL)
    way_out: str = ""  # what the user does instead (for refusals)

    @property
    def is_policy(self) -> bool:
        """This product's own refusal: the real `pulumi up` would apply the change."""
        return self.actor == POLICY


TFG = "hashicorp/terraform-provider-google"
PK = "pulumi/pulumi-kubernetes"
P = "pulumi/pulumi"
KQ = "kubernetes-sigs/kueue"

RULES: tuple[WorldRule, ...] = (
    # providers
    WorldRule("gcp-force-new", PROVIDER, REPLACE,
              "a ForceNew attribute of a GCP resource that gets another value (spot, service account, a cluster's "
              "network or location, a workload policy's topology, ...) replaces it; a ForceNew block only when it "
              "is added or removed (rule bridge-force-new)",
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
              "a Kubernetes provider with a clusterIdentifier is replaced only when the identifier changes (an "
              "unknown one, of a cluster being re-created, counts as changed; without one: a new kubeconfig, "
              "context or cluster); only a provider its DiffConfig replaces replaces every object it manages (rule "
              "k8s-diff-config). pathways-gke's identifier carries a digest of the cluster's CA certificate: it "
              "changes with the cluster instance",
              f"{PK} provider/pkg/provider/provider.go (DiffConfig, clusterIdentifier); {P}#8991"),
    # GKE
    WorldRule("gke-dns-scope", GKE, REFUSE,
              "GKE cannot change a cluster's Cloud DNS scope once it is set (cluster or VPC scope); the provider "
              "sends a dnsConfig change as an update (DesiredDnsConfig; dnsConfig is not ForceNew), so `pulumi up` "
              "fails. Removing the block does not go back to kube-dns either: the update carries an empty "
              "DesiredDnsConfig (expandDnsConfig returns nil), so Cloud DNS stays or the update fails. Moving a "
              "Standard cluster from kube-dns to Cloud DNS is allowed in place",
              "https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-dns (limitations: \"After you set the "
              "scope with the --cluster-dns-scope flag, you cannot change the DNS scope of the cluster\"); "
              "https://cloud.google.com/kubernetes-engine/docs/concepts/about-cloud-dns (\"For Standard clusters, "
              "you can switch from kube-dns to Cloud DNS\"); "
              "hashicorp/terraform-provider-google-beta google-beta/services/container/resource_container_cluster.go "
              "(dns_config schema: Optional, not ForceNew; resourceContainerClusterUpdate: HasChange(\"dns_config\") "
              "-> DesiredDnsConfig: expandDnsConfig)",
              "this needs a new cluster: keep cluster.dns at the Cloud DNS mode the cluster was created with "
              "(set it explicitly instead of `auto`), or re-create the cluster"),
    WorldRule("gke-tpu-slice-immutable", GKE, REFUSE,
              "a multi-host TPU slice node pool is atomic and immutable: GKE adds no node to it and does not reshape "
              "it. The provider sends a changed nodeCount as a resize, which GKE refuses, so `pulumi up` fails (a "
              "changed placementPolicy tpuTopology or type inside the block is an update the provider never sends: "
              "rule tpu-placement-not-applied)",
              "https://cloud.google.com/kubernetes-engine/docs/concepts/tpus (multi-host TPU slice node pools: "
              "\"you can't add nodes\"; atomicity, immutability); "
              "hashicorp/terraform-provider-google-beta google-beta/services/container/resource_container_node_pool.go "
              "(placement_policy: a ForceNew block whose type and tpu_topology are not ForceNew, policy_name is; "
              "node_count resized in place)",
              "replace the pool: pathways-gke lists placementPolicy and nodeCount in a multi-host slice pool's "
              "replaceOnChanges"),
    WorldRule("gcs-bucket-name-409", STORAGE, REFUSE,
              "a Cloud Storage bucket cannot be moved or renamed, and its replacement keeps the same name: bucket "
              "names are global, so the successor's create fails with 409 while the old bucket exists — and it "
              "stays: pathways-gke retains buckets (retainOnDelete) and a non-empty bucket without forceDestroy "
              "cannot be deleted. A location (or other ForceNew) change of a created bucket never applies",
              "https://cloud.google.com/storage/docs/moving-buckets (\"some of the properties you set are "
              "permanent and cannot be changed, including the bucket's name, its geographic location\"); "
              "https://cloud.google.com/storage/docs/buckets (names are globally unique); "
              f"{TFG} google/services/storage/resource_storage_bucket.go (location ForceNew); "
              f"{P} pkg/resource/deploy/step.go (RetainOnDelete skips the provider Delete)",
              "keep buckets[].location; to move, add a bucket under a NEW name with the new location (and point "
              "gcsScratch / the checkpoint paths at it), copy the data (gcloud storage cp -r / Storage Transfer), "
              "then remove the old entry: pathways-gke retains it, delete it by hand when it is empty; or keep "
              "the name and relocate the bucket outside Pulumi (`gcloud storage buckets relocate`, "
              "https://cloud.google.com/storage/docs/bucket-relocation/overview), then set the new location"),
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
              f"with Kueue, the `{QUEUE_NAME_LABEL}` label of a LeaderWorkerSet cannot be removed, and cannot be "
              "added or changed once a group is ready (status.readyReplicas > 0; turning Kueue on or off for a "
              "running serving workload)",
              f"{KQ} v0.19.2 pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go (ValidateUpdate: "
              "`!isSuspended || newQueueName == \"\"`)",
              "delete the workload first (remove it, `pulumi up`, add it back); pathways-gke replaces it"),
    WorldRule("kueue-lws-pod-template", WEBHOOK, REFUSE,
              f"while a LeaderWorkerSet carries `{QUEUE_NAME_LABEL}`, Kueue freezes each pod template's shape: the "
              "number of containers and init containers, their resource requests (not limits) and ports, and the "
              "pod's nodeSelector, affinity, tolerations, runtimeClassName, priority, topologySpreadConstraints, "
              "overhead, resourceClaims and pod-level resource requests; a leader template cannot be added or "
              "removed. Images, commands, env, probes and limits still roll in place",
              f"{KQ} v0.19.2 pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go "
              "(validateImmutablePodTemplateSpec); pkg/controller/jobframework/validation.go "
              "(ValidateImmutablePodGroupPodSpec); pkg/util/pod/pod.go (SpecShape, ContainersShape)",
              "delete the workload first; pathways-gke replaces it (replaceOnChanges on these paths and on the "
              f"`{KUEUE_FROZEN_SHAPE_ANNOTATION}` digest)"),
    WorldRule("kueue-lws-group-size", WEBHOOK, REFUSE,
              f"while a LeaderWorkerSet carries `{QUEUE_NAME_LABEL}`, spec.leaderWorkerTemplate.size is immutable "
              "(feature gate LWSImmutableGroupSize: beta and on by default in Kueue v0.18.5+ and v0.19.1+; the "
              "Workload's PodSets are never recomputed, so a larger group would run pods without quota)",
              f"{KQ} v0.19.2 pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go (ValidateUpdate, "
              "LWSImmutableGroupSize); pkg/features/kube_features.go",
              "delete the workload first; pathways-gke replaces a Kueue-managed LeaderWorkerSet on a size change"),
    WorldRule("kueue-jobset-queue-name", WEBHOOK, REFUSE,
              f"with Kueue, the `{QUEUE_NAME_LABEL}` label of a running (unsuspended) JobSet is immutable",
              "kubernetes-sigs/kueue pkg/controller/jobs/jobset/jobset_webhook.go (validateUpdate -> "
              "jobframework.ValidateJobOnUpdate); pkg/controller/jobframework/validation.go",
              "delete the workload first; pathways-gke replaces the JobSet on a queue-name change"),
    # the controllers' releases
    WorldRule("kueue-topology-levels", KUBERNETES, REFUSE,
              "a Kueue Topology's spec.levels are immutable (CEL rule `self == oldSelf`, \"field is immutable\"): "
              "adding a dynamic sub-slice shape (a partition level) cannot update it; pathways-gke replaces the "
              "Topology delete-first instead (replaceOnChanges: spec.levels)",
              "kubernetes-sigs/kueue apis/kueue/v1beta2/topology_types.go (TopologySpec.Levels XValidation)",
              "pathways-gke replaces it; admitted dynamic-slice workloads keep running, new ones wait for it"),
    WorldRule("controller-downgrade", POLICY, REFUSE,
              "POLICY of pathways-gke, not a refusal of the world: the API server accepts the older release's "
              "manifest and `pulumi up` would apply it. Moving a JobSet, Kueue or LeaderWorkerSet pin back to an "
              "older minor release is refused because the older CRDs prune the fields the newer release wrote into "
              "stored objects and the older controller cannot reconcile them; no controller documents a downgrade "
              "path (Kueue's upgrade policy covers upgrades: review the .0 release notes of every minor crossed). "
              "A patch move within one minor is allowed both ways; an upgrade across minors is allowed",
              "releases.release_change; kubernetes-sigs/kueue site/content/en/docs/getting-started/installation.md "
              "(\"Upgrade policy\") and CHANGELOG/CHANGELOG-0.19.md (\"Actions Required Before Upgrading\"); "
              "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/"
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
              "every resource managed by a provider whose DiffConfig asks for replacement is replaced with it "
              "(a provider replaced by replaceWith alone does not replace its objects)",
              f"{P} pkg/resource/deploy/step_generator.go (calculateDependentReplacements: provider in the "
              "replace set)"),
    WorldRule("delete-before-replace-cascade", ENGINE, CASCADE,
              "when a resource is replaced delete-first, every dependent with a property dependency on it is "
              "re-diffed from its old state (old inputs, ignoreChanges, replaceOnChanges) with those inputs "
              "unknown and replaced when its provider then asks for replacement (a replaced cluster replaces every "
              "node pool; a replaced service account its project grants; a replaced tpu7x workload policy its "
              "pool)",
              f"{P} pkg/resource/deploy/step_generator.go (calculateDependentReplacements); "
              f"{P}#19056 (replaceOnChanges counts)"),
    WorldRule("protect-replace", ENGINE, REFUSE,
              "a resource protected in the state and in the program cannot be replaced (\"unable to replace "
              "resource … as it is currently marked for protection\"); unprotecting and replacing in one update "
              "is allowed for its own replacement (a dependent of a delete-first replacement: rule "
              "protect-cascade)",
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
    WorldRule("alias", ENGINE, CASCADE,
              "a resource whose alias names an old URN is that resource renamed (no delete, no create); without an "
              "alias a renamed resource is deleted and created again",
              f"{P} pkg/resource/deploy/step_generator.go (aliases)"),
    # --- the engine's and the bridge's algorithms (issue 30: each rule as its source computes it) ---
    WorldRule("bridge-force-new", PROVIDER, REPLACE,
              "the Terraform bridge replaces a GCP resource when a ForceNew attribute gets a different value, or a "
              "ForceNew block is added or removed (its element count changes); a change inside an existing block "
              "is an update unless that field is ForceNew itself (a TPU pool's placementPolicy.tpuTopology and "
              "type update in place, placementPolicy.policyName replaces); an Optional+Computed field left out of "
              "the config keeps its state",
              "pulumi/pulumi-terraform-bridge pkg/tests/diff_test/diff_test.go (TestBlockCollectionForceNew, "
              "TestBlockCollectionElementForceNew); hashicorp/terraform-provider-google-beta v7.42.0 "
              "google-beta/services/container/{resource_container_node_pool.go,node_config.go,"
              "resource_container_cluster.go} (bridge_schema.py holds the table)"),
    WorldRule("bridge-delete-before-replace", PROVIDER, DELETE_FIRST,
              "the bridge replaces delete-first a resource whose autonamed field (name, accountId) was given "
              "explicitly, and the resources pulumi-gcp marks DeleteBeforeReplace (projects IAMMember)",
              "pulumi/pulumi-terraform-bridge pkg/tfbridge/provider.go (Diff: res.Schema.DeleteBeforeReplace || "
              "nameRequiresDeleteBeforeReplace); pulumi/pulumi-gcp provider/resources.go (SetAutonaming, "
              "google_project_iam_member DeleteBeforeReplace)"),
    WorldRule("k8s-diff-config", PROVIDER, REPLACE,
              "a Kubernetes provider is replaced only when its DiffConfig says so: when clusterIdentifier changes "
              "(or becomes unknown); with an unchanged clusterIdentifier it never is; without one, when kubeconfig, "
              "context or cluster is unknown or names another cluster. Only then are its objects replaced: a "
              "provider replaced by replaceWith alone gives its objects a new provider that DiffConfig does not "
              "ask to replace them",
              f"{PK} provider/pkg/provider/provider.go (DiffConfig); {P} pkg/resource/deploy/step_generator.go "
              "(providerChanged: replace only when the new provider's DiffConfig reports replacement)"),
    WorldRule("k8s-objects-left-behind", ENGINE, REFUSE,
              "the cluster a Kubernetes provider connects to is replaced but its objects are not: the provider's "
              "DiffConfig does not replace it (its clusterIdentifier is unchanged), or the objects move to it from "
              "an aliased old provider (the engine keeps them). `pulumi up` succeeds, every such object stays "
              "`same` in the state and is absent from the new cluster",
              f"{PK} provider/pkg/provider/provider.go (DiffConfig: Replaces cleared while clusterIdentifier is "
              f"unchanged); {P} pkg/resource/deploy/step_generator.go (providerChanged, its aliased check)",
              "give the Kubernetes provider a clusterIdentifier that changes with the cluster instance (upgrading "
              "from <name>-k8s: run one `pulumi up` with the renamed provider before re-creating the cluster), or "
              "remove the workloads and controllers first, replace the cluster, then add them back"),
    WorldRule("tpu-placement-not-applied", PROVIDER, REFUSE,
              "a change of placementPolicy.type or .tpuTopology inside an existing placement policy is an update "
              "for the bridge (the block is ForceNew, those fields are not), but the node-pool update never sends "
              "placement_policy: the slice keeps its shape (GKE cannot resize a multi-host slice in place) and every "
              "later preview shows the change again",
              "hashicorp/terraform-provider-google-beta v7.42.0 google-beta/services/container/"
              "resource_container_node_pool.go (schemaNodePool placement_policy; nodePoolUpdate has no "
              "placement_policy); pulumi/pulumi-terraform-bridge TestBlockCollectionForceNew",
              "replace the pool instead: list placementPolicy in its replaceOnChanges, or remove the pool "
              "(`pulumi up`) and add it back with the new shape"),
    WorldRule("protect-cascade", ENGINE, REFUSE,
              "a dependent that a delete-first replacement would replace is refused while it is protected in the "
              "state, even when the program unprotects it in the same update (the engine reads the old state's "
              "protect for cascaded dependents)",
              f"{P} pkg/resource/deploy/step_generator.go (continueStepsFromDiff: dependentResource.Protect, "
              "\"unable to replace resource … as part of replacing …\")",
              "unprotect first (`pulumi up` with protect off, or `pulumi state unprotect <urn>`), then make the "
              "change"),
    WorldRule("read-relinquish", ENGINE, RELEASE,
              "a managed resource that becomes a read under the same URN and ID (adopted: `cluster.create: false`, or "
              "a node pool of a tpuPools group set to `create: false`, whose provider id and read id are both "
              "projects/P/locations/L/clusters/C/nodePools/NAME) is relinquished: read, nothing deleted, it leaves "
              "Pulumi's management; with a different ID it is a read-replacement and the old resource is deleted",
              f"{P} pkg/resource/deploy/step_generator.go (GenerateReadSteps: relinquish when old.ID == ID, "
              "NewReadReplacementStep otherwise); TFB google-beta/services/container/resource_container_node_pool.go "
              "(create: the id)"),
    WorldRule("adopted-create-409", GKE, REFUSE,
              "a resource that was read (an adopted cluster, an existing node pool of a `create: false` group) and "
              "is now created is a create (the read state is not owned), and the existing object of that name makes "
              "it fail (GKE's 409 AlreadyExists; for a node pool the provider's \"resource - projects/…/nodePools/NAME "
              "- already exists\")",
              f"{P} pkg/resource/deploy/step_generator.go (wasExternal: a create); GKE/GCE APIs (AlreadyExists); TFB "
              "google-beta/services/container/resource_container_node_pool.go (resourceContainerNodePoolCreate)",
              "import the existing resource first (`pulumi import`; a node pool: `pulumi import "
              "gcp:container/nodePool:NodePool <urn name> projects/P/locations/L/clusters/C/nodePools/NAME`) or keep "
              "it adopted (create: false)"),
)
RULES_BY_ID: Mapping[str, WorldRule] = MappingProxyType({r.id: r for r in RULES})

# --- force-new (the providers' replace tables) -----------------------------------------------------------------

ANY_INPUT = ("*",)

# Node pools and clusters: the bridge's replace decision walks the Terraform schema (bridge_schema.py: ForceNew
# attributes vs ForceNew blocks, TFB v7.42.0); these are its ForceNew paths, for the tables below and the docs.
# Updated in place (no ForceNew): nodeCount, autoscaling, nodeLocations, version, management, upgradeSettings,
# nodeConfig.{machineType, diskSizeGb, diskType} (GKE re-creates every node: NODES_RECREATED), labels,
# resourceLabels, taints, tags, imageType, workloadMetadataConfig, gcfsConfig, gvnic, kubeletConfig
# (tpuPools[].numaAware; GKE rolls the nodes: NODES_RECREATED), linuxNodeConfig, loggingVariant;
# placementPolicy.{type, tpuTopology} inside an existing block. networkConfig.additionalNodeNetworkConfigs
# (cluster.additionalNetworks) is ForceNew: a new or removed second NIC replaces every TPU pool.
NODE_POOL_FORCE_NEW = bridge_schema.force_new_paths(tokens.NODE_POOL)
CLUSTER_FORCE_NEW = bridge_schema.force_new_paths(tokens.GKE_CLUSTER)

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
    **{type_: bridge_schema.force_new_paths(type_) for type_ in bridge_schema.SCHEMAS},
    # Only a new clusterIdentifier replaces the provider (pulumi-kubernetes provider.go DiffConfig); without one a
    # new kubeconfig/context/cluster does too (k8s_diff_config_replaces is the rule itself).
    tokens.KUBERNETES_PROVIDER: ("clusterIdentifier",),
})
K8S_PROVIDER_WITHOUT_IDENTIFIER = ("kubeconfig", "context", "cluster")

# In-place updates that still re-create every node of the pool (GKE rolls the nodes): on a TPU slice that ends
# the running job just like a replacement does.
NODES_RECREATED: Mapping[str, tuple[str, ...]] = MappingProxyType({
    tokens.NODE_POOL: ("nodeConfig.machineType", "nodeConfig.diskSizeGb", "nodeConfig.diskType", "nodeConfig.imageType",
                       "nodeConfig.bootDisk", "version",
                       # GKE node system config: "changes typically trigger a rolling update of the nodes in the
                       # pool, which involves recreating nodes" (how-to/node-system-config, before you begin)
                       "nodeConfig.kubeletConfig"),
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
    """The provider's own delete-first: pulumi-kubernetes for a named object that keeps its name and namespace; the
    Terraform bridge for an explicitly named autonamed field and pulumi-gcp's DeleteBeforeReplace resources
    (bridge_schema.deletes_first)."""
    if bridge_schema.has_schema(resource_type):
        return bridge_schema.deletes_first(resource_type, new_inputs)
    if not is_k8s_object(resource_type, new_inputs):
        return False
    name = value_at(new_inputs, "metadata.name")
    return (isinstance(name, str) and bool(name) and name == value_at(old_inputs, "metadata.name")
            and value_at(new_inputs, "metadata.namespace") == value_at(old_inputs, "metadata.namespace"))


CLUSTER_IDENTIFIER = "clusterIdentifier"
_ACTIVE_CLUSTER_KEYS = ("kubeconfig", "context", "cluster")


def k8s_diff_config_replaces(old: Mapping[str, Any], new: Mapping[str, Any],
                             unknown: Iterable[str] = ()) -> tuple[str, ...]:
    """The keys for which pulumi-kubernetes' `DiffConfig` asks to replace a provider (empty: not replaced).

    As provider/pkg/provider/provider.go computes it: no diff, no replace; a clusterIdentifier present on both
    sides and changed (or unknown) replaces; a clusterIdentifier that is the same and set clears every replace
    (adding or removing it never replaces); otherwise an unknown kubeconfig / context / cluster replaces, and a
    known one that changed replaces when the active cluster changes (offline: any change of a known value, since
    the kubeconfig's active cluster cannot be read without it); renderYamlToDirectory replaces.
    `unknown` names the inputs the engine passes as unknown (they read a resource being replaced)."""
    unknown = set(unknown)
    changed = {p[0] for p in changed_paths(dict(old), dict(new)) if p and p[0] != "*"} | unknown
    if not changed:
        return ()
    replaces: list[str] = []
    ident_old, ident_new = old.get(CLUSTER_IDENTIFIER), new.get(CLUSTER_IDENTIFIER)
    if ident_old not in (None, "") and ident_new not in (None, "") and CLUSTER_IDENTIFIER in changed:
        replaces.append(CLUSTER_IDENTIFIER)  # diff.Updated(clusterIdentifierKey)
    elif CLUSTER_IDENTIFIER not in changed and ident_new not in (None, ""):
        return ()  # diff.Same(clusterIdentifierKey) && news.HasValue: Replaces = nil
    for key in _ACTIVE_CLUSTER_KEYS:
        if key in unknown:
            return (*replaces, key)
    replaces += [k for k in _ACTIVE_CLUSTER_KEYS if k in changed]
    if "renderYamlToDirectory" in changed:
        replaces.append("renderYamlToDirectory")
    return tuple(replaces)


def provider_replace_reasons(resource_type: str, old: Mapping[str, Any], new: Mapping[str, Any],
                             unknown: Iterable[str] = ()) -> list[tuple[Part, ...]]:
    """What the provider's own Diff says forces replacement, as property paths (empty: an update or no change).

    GCP resources: the Terraform bridge over the TF schema (bridge_schema.replace_paths); Kubernetes objects:
    pulumi-kubernetes' forceNew table, matched against the patch (an added value that holds a force-new field
    touches it: provider/pkg/provider/diff.go, PatchPropertiesChanged); a Kubernetes provider: DiffConfig.
    `unknown` names top-level inputs passed as unknown (the engine's delete-before-replace re-diff)."""
    unknown = tuple(unknown)
    if resource_type == tokens.KUBERNETES_PROVIDER:
        return [(k,) for k in k8s_diff_config_replaces(old, new, unknown)]
    if bridge_schema.has_schema(resource_type):
        news = {**new, **{k: bridge_schema.UNKNOWN for k in unknown}}
        return bridge_schema.replace_paths(resource_type, old, news)
    patterns = replace_patterns(resource_type, new)
    parsed = [parse_path(p) for p in patterns]
    out = [p for p in changed_paths(dict(old), dict(new)) if any(covers(q, p) for q in parsed)]
    return out + [(k,) for k in unknown if forces_replace(patterns, k) and (k,) not in out]


def forces_replace(patterns: Iterable[str], key: str) -> bool:
    """Does an unknown top-level input `key` force replacement under these patterns (the DBR re-diff)?"""
    return any(covers(parse_path(p), (key,)) for p in patterns)


# --- updates the server refuses -----------------------------------------------------------------------------------

LWS_TEMPLATES = ("spec.leaderWorkerTemplate.leaderTemplate", "spec.leaderWorkerTemplate.workerTemplate")
LWS_SIZE_PATH = "spec.leaderWorkerTemplate.size"
# Kueue's pod shape (pkg/util/pod/pod.go SpecShape, v0.17-v0.19): per container and init container its resource
# *requests* and ports (ContainersShape; limits are not in it), the containers' count, and these pod fields.
KUEUE_FROZEN_POD_FIELDS = ("nodeSelector", "affinity", "tolerations", "runtimeClassName", "priority",
                           "topologySpreadConstraints", "overhead", "resourceClaims")
KUEUE_FROZEN_CONTAINER_FIELDS = ("resources.requests", "ports")
QUEUE_NAME_PATH = f'metadata.labels["{QUEUE_NAME_LABEL}"]'
KUEUE_FROZEN_SHAPE_PATH = f'metadata.annotations["{KUEUE_FROZEN_SHAPE_ANNOTATION}"]'
_LWS_DEFAULT_SIZE = 1  # leaderworkerset_types.go: size defaults to 1
_ABSENT = object()


def _empty(value: Any) -> Any:
    """apiequality.Semantic.DeepEqual treats nil and empty maps and lists alike."""
    return None if value in (None, {}, []) else value


def kueue_pod_shape(pod_spec: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """What Kueue compares of a pod template's spec while the workload is managed (SpecShape)."""
    spec = pod_spec or {}

    def containers(key: str) -> list[dict[str, Any]]:
        return [{f: _empty(value_at(c, f)) for f in KUEUE_FROZEN_CONTAINER_FIELDS} for c in spec.get(key) or ()]

    shape: dict[str, Any] = {"initContainers": containers("initContainers"), "containers": containers("containers"),
                             **{f: _empty(spec.get(f)) for f in KUEUE_FROZEN_POD_FIELDS}}
    if spec.get("resources") is not None:  # pod-level resources count only when set (KEP-2837)
        shape["resources.requests"] = _empty(value_at(spec, "resources.requests"))
    return shape


def kueue_frozen_shape(lws: Mapping[str, Any]) -> dict[str, Any]:
    """Everything Kueue v0.19 freezes on a managed LeaderWorkerSet: the group size and each template's shape."""
    leader = value_at(lws, LWS_TEMPLATES[0])
    return {"size": value_at(lws, LWS_SIZE_PATH, _LWS_DEFAULT_SIZE),
            "leader": None if leader is None else kueue_pod_shape(value_at(leader, "spec")),
            "worker": kueue_pod_shape(value_at(lws, f"{LWS_TEMPLATES[1]}.spec"))}


def kueue_frozen_shape_digest(lws: Mapping[str, Any]) -> str:
    """A digest of `kueue_frozen_shape` (the LWS's KUEUE_FROZEN_SHAPE_ANNOTATION): it changes exactly when Kueue
    would refuse the update, also for the changes no replaceOnChanges path can name (an appended container)."""
    text = json.dumps(kueue_frozen_shape(lws), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def kueue_lws_immutable_paths() -> tuple[str, ...]:
    """Paths of a LeaderWorkerSet Kueue's webhook refuses to update while the queue-name label is set (and the
    label itself, the group size and the frozen-shape digest): a LeaderWorkerSet under Kueue lists them in
    replaceOnChanges. The container count has no path of its own: the digest carries it."""
    per_template = (*KUEUE_FROZEN_POD_FIELDS, "resources.requests",
                    *(f"{c}[*].{f}" for c in ("containers", "initContainers") for f in KUEUE_FROZEN_CONTAINER_FIELDS))
    return (QUEUE_NAME_PATH, LWS_SIZE_PATH, KUEUE_FROZEN_SHAPE_PATH,
            *(f"{t}.spec.{p}" for t in LWS_TEMPLATES for p in per_template))


# A JobSet is replaced (delete-first: a fixed name) on any spec change (JobSet's webhook refuses spec updates) and
# on a queue-name change (Kueue's webhook refuses it on a running JobSet): never updated where it would be refused.
JOBSET_REPLACE_ON_CHANGES = ("spec", QUEUE_NAME_PATH)


def lws_kueue_replace_on_changes(lws: Mapping[str, Any]) -> tuple[str, ...]:
    """What a LeaderWorkerSet adds to its replaceOnChanges for Kueue: the queue-name label always (adding or
    removing it is refused), and with the label everything Kueue freezes."""
    return kueue_lws_immutable_paths() if queue_name(lws) is not None else (QUEUE_NAME_PATH,)


def queue_name(inputs: Mapping[str, Any]) -> Optional[str]:
    value = value_at(inputs, ("metadata", "labels", QUEUE_NAME_LABEL))
    return value if isinstance(value, str) and value else None


def kueue_lws_shape_changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    """The paths where the new LeaderWorkerSet's frozen shape differs from the old one's (validateImmutablePodTemplateSpec:
    a leader template added or removed; per template a different container count, or a different frozen field)."""
    out: list[str] = []
    old_leader, new_leader = value_at(old, LWS_TEMPLATES[0]), value_at(new, LWS_TEMPLATES[0])
    if (old_leader is None) != (new_leader is None):
        out.append(LWS_TEMPLATES[0])
    for template in LWS_TEMPLATES:
        if value_at(old, template) is None or value_at(new, template) is None:
            continue
        before = kueue_pod_shape(value_at(old, f"{template}.spec"))
        after = kueue_pod_shape(value_at(new, f"{template}.spec"))
        for key in sorted(set(before) | set(after)):
            b, a = before.get(key, _ABSENT), after.get(key, _ABSENT)
            if b == a:  # a key on one side only differs (Semantic.DeepEqual of a typed nil and a missing key)
                continue
            if isinstance(b, list) and isinstance(a, list) and len(b) == len(a):
                out += [f"{template}.spec.{key}[{i}].{f}" for i, (x, y) in enumerate(zip(b, a))
                        for f in KUEUE_FROZEN_CONTAINER_FIELDS if x[f] != y[f]]
            else:
                out.append(f"{template}.spec.{key}")
    return tuple(out)


DNS_SCOPE_PATH = "dnsConfig.clusterDnsScope"


def multi_host_slice(node_pool_inputs: Mapping[str, Any]) -> bool:
    """A TPU node pool with a placement policy (a topology or a workload policy): a multi-host slice."""
    policy = value_at(node_pool_inputs, "placementPolicy")
    return isinstance(policy, Mapping) and bool(policy.get("tpuTopology") or policy.get("policyName"))


def dns_scope(cluster_inputs: Mapping[str, Any]) -> Optional[str]:
    """The cluster's Cloud DNS scope (None: kube-dns, no scope set)."""
    scope = value_at(cluster_inputs, DNS_SCOPE_PATH)
    return scope if isinstance(scope, str) and scope not in ("", "DNS_SCOPE_UNSPECIFIED") else None


@dataclass(frozen=True)
class Refusal:
    rule: str  # a WorldRule id
    paths: tuple[str, ...]  # the changed paths it refuses

    @property
    def world_rule(self) -> WorldRule:
        return RULES_BY_ID[self.rule]


def _matching(paths: Sequence[tuple[Part, ...]], patterns: Iterable[str]) -> tuple[str, ...]:
    # `covers`: a webhook / API server compares values, so a whole value that appeared touches what is below it
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

    if resource_type == tokens.NODE_POOL and multi_host_slice(old_inputs):
        refuse("gke-tpu-slice-immutable", ("nodeCount",))
    if resource_type == tokens.GKE_CLUSTER:
        before, after = dns_scope(old_inputs), dns_scope(new_inputs)
        if before is not None and after != before:  # kube-dns -> Cloud DNS (no scope before) is allowed
            out.append(Refusal("gke-dns-scope", (DNS_SCOPE_PATH,)))
    elif resource_type == tokens.NODE_POOL and value_at(old_inputs, "placementPolicy") and value_at(
            new_inputs, "placementPolicy"):
        refuse("tpu-placement-not-applied", ("placementPolicy.type", "placementPolicy.tpuTopology"))
    elif resource_type == tokens.LEADER_WORKER_SET:
        old_q, new_q = queue_name(old_inputs), queue_name(new_inputs)
        if old_q != new_q:
            refuse("kueue-lws-queue-name", (QUEUE_NAME_PATH,))
        if new_q is not None:  # the webhook checks while the *new* object is managed (WorkloadShouldBeSuspended)
            frozen = kueue_lws_shape_changes(old_inputs, new_inputs)
            if frozen:
                out.append(Refusal("kueue-lws-pod-template", frozen))
            if (value_at(old_inputs, LWS_SIZE_PATH, _LWS_DEFAULT_SIZE)
                    != value_at(new_inputs, LWS_SIZE_PATH, _LWS_DEFAULT_SIZE)):
                out.append(Refusal("kueue-lws-group-size", (LWS_SIZE_PATH,)))
        refuse("lws-immutable", ("spec.leaderWorkerTemplate.subGroupPolicy",))
    elif resource_type == tokens.KUEUE_TOPOLOGY:
        refuse("kueue-topology-levels", ("spec.levels",))
    elif resource_type == tokens.JOBSET:
        if queue_name(old_inputs) != queue_name(new_inputs):
            refuse("kueue-jobset-queue-name", (QUEUE_NAME_PATH,))
        refuse("jobset-spec-immutable", ("spec.replicatedJobs", "spec.network", "spec.successPolicy",
                                         "spec.failurePolicy", "spec.startupPolicy", "spec.managedBy"))
    return out


def release_moves(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> list[PinChange]:
    """The controller pins a change moves (releases.PinChange per addon), read from the readiness ConfigMap, which
    records each installed release as `<addon>.version`."""
    if resource_type != tokens.CONFIG_MAP or value_at(new_inputs, "metadata.name") != SERVICES_CONFIGMAP:
        return []
    out = []
    for addon in RELEASES:
        key = ("data", f"{addon}.version")
        before, after = value_at(old_inputs, key), value_at(new_inputs, key)
        if before and after and before != after:
            out.append(release_change(addon, before, after))
    return out


def release_refusals(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> list[Refusal]:
    """A controller pin moved back past a minor release (this product's policy). Refused however the readiness
    ConfigMap itself is applied (updated or, as pulumi-kubernetes does on a data change, replaced): the refusal is
    about the release."""
    return [Refusal("controller-downgrade", (format_path(("data", f"{move.addon}.version")),))
            for move in release_moves(resource_type, old_inputs, new_inputs) if move.refused]


def release_notes(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> list[str]:
    """What an allowed controller move does and asks for (e.g. Kueue's release notes of every minor crossed)."""
    return [effect for move in release_moves(resource_type, old_inputs, new_inputs) if not move.refused
            for effect in move.effects]


def replace_refusals(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any],
                     reasons: Sequence[str]) -> list[Refusal]:
    """Refusals a replacement meets whatever its order: a bucket replaced under its global name (409)."""
    name = new_inputs.get("name")
    if (resource_type == tokens.BUCKET and isinstance(name, str) and name and not name.startswith("<")
            and name == old_inputs.get("name")):
        return [Refusal("gcs-bucket-name-409", tuple(reasons))]
    return []


def create_refusals(resource_type: str, inputs: Mapping[str, Any]) -> list[Refusal]:
    """Refusals a create meets that the diff can see on a new object. None is modelled today: Kueue accepts every
    LeaderWorkerSet startup policy (LeaderReady since v0.11, kueue#4023; no startup-policy check in its webhook)."""
    return []


__all__ = [
    "ANY_INPUT", "CASCADE", "CLUSTER_IDENTIFIER", "CONTROLLER", "create_refusals", "DELETE_FIRST", "dns_scope",
    "DNS_SCOPE_PATH", "ENGINE", "forces_replace", "GKE", "INHERIT", "is_k8s_object", "JOBSET_REPLACE_ON_CHANGES",
    "k8s_diff_config_replaces", "K8S_FORCE_NEW", "K8S_IDENTITY", "K8S_PROVIDER_WITHOUT_IDENTIFIER", "KUBERNETES",
    "kueue_frozen_shape", "kueue_frozen_shape_digest", "KUEUE_FROZEN_SHAPE_PATH", "kueue_lws_immutable_paths",
    "kueue_lws_shape_changes", "kueue_pod_shape", "lws_kueue_replace_on_changes", "LWS_SIZE_PATH",
    "multi_host_slice", "NODES_RECREATED", "POLICY", "PROVIDER", "provider_deletes_first", "provider_replace_reasons",
    "queue_name", "QUEUE_NAME_PATH", "Refusal", "REFUSE", "release_moves", "release_notes", "release_refusals",
    "REPLACE", "REPLACE_PATHS", "replace_patterns", "replace_refusals", "RULES", "RULES_BY_ID", "STORAGE",
    "update_refusals", "WEBHOOK", "WorldRule",
]
