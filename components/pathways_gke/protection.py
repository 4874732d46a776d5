"""Which children of PathwaysCluster carry Pulumi `protect`: one table, keyed by child kind.

Pulumi children inherit `protect` from their parent unless they set it (pulumi SDK `resource.py`), so a
component created with `ResourceOptions(protect=True)` would otherwise protect everything under it, JobSets
included, and a protected JobSet can neither be replaced (its spec is immutable) nor deleted. Every child
therefore sets `protect` explicitly from this table:

- INFRASTRUCTURE: slow or costly to recreate, or holds what other things depend on (the cluster, node pools,
  the nodes' service account, the JobSet CRD whose deletion deletes every JobSet, the workloads' namespace,
  scratch data). Protected when the component is protected (`opts.protect`) or `cluster.protect` is set.
- REPLACEABLE: must stay replaceable or deletable by the engine at any time (JobSets and their Secrets, the
  readiness objects, controllers, queues, the Kubernetes provider, sub-components). Never protected.

Pure data (no Pulumi import). A new child kind must be added here; `protect_child` refuses unknown kinds.
"""

from __future__ import annotations

from typing import Optional, TypedDict

INFRASTRUCTURE = "infrastructure"
REPLACEABLE = "replaceable"

CHILD_PROTECTION: dict[str, str] = {
    # GCP
    "cluster": INFRASTRUCTURE,
    "node-pool": INFRASTRUCTURE,
    "workload-policy": INFRASTRUCTURE,  # tpu7x placement policy its node pools are created with
    "node-service-account": INFRASTRUCTURE,  # a recreated account has a new unique id; node IAM breaks
    "node-service-account-role": REPLACEABLE,  # re-grantable at any time; a role list change must apply
    "webhook-firewall": REPLACEABLE,  # derived from config; recreated in seconds
    "bucket": INFRASTRUCTURE,  # scratch / checkpoint data (also retainOnDelete: it outlives a destroy)
    "grant": REPLACEABLE,  # bucket / project IAM members and Workload Identity bindings: re-grantable any time
    "router": REPLACEABLE,  # Cloud Router + NAT of private nodes: derived from config, recreated in minutes
    "alert-policy": REPLACEABLE,  # Cloud Monitoring alert policies: server-named, recreated at will
    "adopted": REPLACEABLE,  # read (`get`), never created or deleted by the stack: protect has nothing to guard
    # Kubernetes
    "kubernetes-provider": REPLACEABLE,  # a protected provider blocks its own replacement (new cluster)
    "namespace": INFRASTRUCTURE,  # deleting it deletes every workload object in it
    "service-account": REPLACEABLE,  # a workload's Kubernetes ServiceAccount: recreated in seconds
    "crd": INFRASTRUCTURE,  # the JobSet CRD: deleting it deletes every JobSet in the cluster
    "controller": REPLACEABLE,  # every other object of a controller install (Deployments, RBAC, webhooks)
    "install": REPLACEABLE,  # the yaml/v2 ConfigFile component itself (its children decide per object)
    "priority-class": REPLACEABLE,
    "queue": REPLACEABLE,  # Kueue flavors, ClusterQueue, LocalQueue
    "checkpointing": REPLACEABLE,  # multi-tier checkpointing's CheckpointConfigurations: derived from config
    "readiness": REPLACEABLE,  # the readiness ConfigMap
    "workload": REPLACEABLE,  # PathwaysWorkload / JaxWorkload components
    "jobset": REPLACEABLE,  # spec immutable: replaced on change
    "serving": REPLACEABLE,  # a PathwaysServing's LeaderWorkerSet, Services and client proxies: rolled or replaced
    "workload-secret": REPLACEABLE,  # replaced with its JobSet
    "component": REPLACEABLE,  # grouping components (TpuSliceGroup, ClusterServices)
}


# retainOnDelete per child kind. Children inherit retainOnDelete from their parent when they leave it unset
# (pulumi/pulumi pkg/resource/deploy/source_eval.go, inheritFromParent): a component created with
# retain_on_delete=True would retain its JobSets and Services too, and a retained object with a fixed name that is
# replaced delete-first is never deleted, so its successor fails with 409 AlreadyExists (apply_rules
# `retain-on-delete-409`). So: REPLACEABLE kinds are never retained; INFRASTRUCTURE kinds inherit what the
# component was told (None); a bucket is always retained (its data outlives a destroy).
ALWAYS_RETAINED = frozenset({"bucket"})


def retain_child(kind: str) -> Optional[bool]:
    """`retain_on_delete` for a child of `kind`: True (always kept), False (never), None (inherit the parent's)."""
    protect_child(kind, False)  # an unknown kind is refused here too
    if kind in ALWAYS_RETAINED:
        return True
    return None if CHILD_PROTECTION[kind] == INFRASTRUCTURE else False


class ChildOptions(TypedDict):
    protect: bool
    retain_on_delete: Optional[bool]


def child_options(kind: str, protected: bool) -> ChildOptions:
    """The `protect` and `retain_on_delete` keyword arguments of a child of `kind` (ResourceOptions(**...))."""
    return ChildOptions(protect=protect_child(kind, protected), retain_on_delete=retain_child(kind))


def protect_child(kind: str, protected: bool) -> bool:
    """`protect` for a child of `kind` when the infrastructure is (`protected`) or is not protected."""
    try:
        rule = CHILD_PROTECTION[kind]
    except KeyError:
        raise KeyError(f"no protect rule for child kind {kind!r}; add it to CHILD_PROTECTION") from None
    return protected and rule == INFRASTRUCTURE


__all__ = ["ALWAYS_RETAINED", "CHILD_PROTECTION", "INFRASTRUCTURE", "REPLACEABLE", "child_options", "protect_child",
           "retain_child"]
