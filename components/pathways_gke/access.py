"""Identity and egress resources of a PathwaysCluster: Kubernetes service accounts (+ Workload Identity
bindings), the buckets the stack creates, bucket/project grants to the identity each pod really has, and
Cloud Router + NAT for private nodes. A thin shell over gke/identity.py and gke/cluster_spec.py.

Every resource here is a child of the PathwaysCluster (names in docs/components.md).
"""

from dataclasses import dataclass
from typing import Any, Callable, Mapping, NotRequired, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from . import naming
from .config.types import gsa_project
from .config.model import ClusterFacts
from .config.stack import StackConfig
from .gke.cluster_spec import api_and_role_notes, egress_notes, nat_args, router_args, shared_vpc_notes
from .protection import child_options
from .gke.identity import (POOL_MEMBER_PATTERN, GCP_SA_ANNOTATION, WORKLOAD_IDENTITY_USER, bucket_args, grant_plan,
                                 identities_report, ksa_bindings, manual_grants)


def fixed_name(parent: pulumi.Resource, **extra: Any) -> pulumi.ResourceOptions:
    """Options of a child whose cloud name is fixed: a replacement must delete the old one first (409 otherwise)."""
    return pulumi.ResourceOptions(parent=parent, delete_before_replace=True, **extra)


def egress(parent: pulumi.Resource, name: str, stack: StackConfig, protected: bool) -> list[pulumi.Resource]:
    """Cloud Router + NAT for a private cluster's region (none when the network has its own NAT)."""
    out: list[pulumi.Resource] = []
    router = router_args(stack)
    if router is not None:
        out.append(gcp.compute.Router(f"{name}-router", **router,
                                      opts=fixed_name(parent, **child_options("router", protected))))
    nat = nat_args(stack)
    if nat is not None:
        out.append(gcp.compute.RouterNat(f"{name}-nat", **nat, opts=fixed_name(
            parent, depends_on=out[:1], **child_options("router", protected))))
    return out


@dataclass(frozen=True)
class AccessPlan:
    """Access's own section: what the stack decides about identity, buckets and grants (pure, `access_plan`)."""

    report: dict
    """Per workload: the GCP identity each pod runs as, what it can write/read, and who grants it."""
    actions: tuple
    """Grants and network setup the stack cannot make itself (warned, and output `actionsRequired`)."""
    service_accounts: tuple
    """The Kubernetes service accounts (created or bound to a GCP service account), `ksa_bindings`."""
    buckets: dict
    """Bucket name -> gcp.storage.Bucket arguments, for the buckets the stack creates."""
    grants: tuple
    """The role grants (`grant_plan`); those `by_stack` become resources."""


def access_plan(stack: StackConfig) -> AccessPlan:
    """Everything Access creates, decided from the validated stack by the pure builders."""
    return AccessPlan(
        report=identities_report(stack),
        actions=(*manual_grants(stack), *shared_vpc_notes(stack), *egress_notes(stack), *api_and_role_notes(stack)),
        service_accounts=tuple(ksa_bindings(stack)),
        buckets={b.name: bucket_args(stack, b.name) for b in stack.buckets if b.create},
        grants=tuple(grant_plan(stack)),
    )


class AccessArgs(TypedDict):
    """Inputs of a cluster's Access: its cluster's facts, its own section and resources the cluster created."""

    cluster: ClusterFacts
    """What it reads about its cluster (the project number grants name principals with)."""
    plan: AccessPlan
    """The service accounts, buckets and grants to create (`access_plan(stack)`)."""
    gke_cluster: Optional[pulumi.Resource]
    """The GKE cluster when the stack creates it (the workload pool exists once it has Workload Identity)."""
    node_service_account: Optional[pulumi.Resource]
    """The nodes' service account when the stack creates it (grants to it wait for it)."""
    kubernetes: pulumi.ProviderResource
    """The cluster's Kubernetes provider (the service accounts are Kubernetes objects, the rest GCP resources)."""
    namespace_ready: list
    """What the workloads' namespace is ready after; the Kubernetes service accounts wait for it."""
    protected: NotRequired[bool]
    """Whether the infrastructure is protected (buckets follow it; protection.py)."""
    resolve: NotRequired[Callable[[Any], Any]]
    """Swaps the stand-ins of config values that are still Outputs for them (deferred.py)."""
    pool_members: NotRequired[Mapping[str, Any]]
    """For an existing node pool's stand-in (gke/identity.py POOL_MEMBER), the member its nodes run as: an Output of
    what the cluster read at preview."""


class Access:
    """The service accounts, buckets and grants of one cluster's workloads.

    Not a ComponentResource: its resources are children of `opts.parent` (the PathwaysCluster), whose URNs are
    public API. Built like the components, `(name, args, opts)`."""

    def __init__(self, name: str, args: AccessArgs, opts: pulumi.ResourceOptions):
        parent = opts.parent
        facts, plan = args["cluster"], args["plan"]
        cluster, node_service_account = args["gke_cluster"], args["node_service_account"]
        kubernetes, namespace_ready = args["kubernetes"], args["namespace_ready"]
        protected, resolve = args.get("protected", False), args.get("resolve", lambda value: value)
        self.report = plan.report
        self.actions = list(plan.actions)
        pool_members = args.get("pool_members") or {}
        for action in self.actions:
            pulumi.Output.from_input(readable_pool_members(resolve(action), pool_members)).apply(
                lambda text: pulumi.log.warn(text, resource=parent))
        number = facts.project_number or ""  # grant_plan leaves principals to the user without it
        self.service_accounts: list[pulumi.Resource] = []
        self.bindings: list[pulumi.Resource] = []
        for ksa in plan.service_accounts:
            if ksa["create"]:
                metadata: k8s.meta.v1.ObjectMetaArgsDict = {"name": ksa["name"], "namespace": ksa["namespace"],
                                            "labels": dict(naming.MANAGED_BY_LABELS)}
                if ksa["gcpServiceAccount"]:
                    metadata["annotations"] = {GCP_SA_ANNOTATION: ksa["gcpServiceAccount"]}
                self.service_accounts.append(k8s.core.v1.ServiceAccount(
                    f"{name}-ksa-{ksa['name']}", metadata=metadata,
                    opts=pulumi.ResourceOptions(parent=parent, provider=kubernetes, depends_on=namespace_ready,
                                                **child_options("service-account", protected))))
            gsa = ksa["gcpServiceAccount"]
            if gsa:
                self.bindings.append(gcp.serviceaccount.IAMMember(
                    f"{name}-ksa-{ksa['name']}-wi",
                    service_account_id=f"projects/{gsa_project(gsa)}/serviceAccounts/{gsa}",
                    role=WORKLOAD_IDENTITY_USER, member=ksa["member"],
                    # the workload pool <project>.svc.id.goog exists once the cluster has Workload Identity
                    opts=pulumi.ResourceOptions(parent=parent, depends_on=[cluster] if cluster else None,
                                                **child_options("grant", protected))))
        self.buckets = {
            bucket: gcp.storage.Bucket(f"{name}-bucket-{bucket}", **bucket_arguments,
                                       opts=pulumi.ResourceOptions(parent=parent, **child_options("bucket", protected)))
            for bucket, bucket_arguments in plan.buckets.items()
        }
        self.grants: list[pulumi.Resource] = []
        for grant in plan.grants:
            if not grant.by_stack:
                continue
            member: Any = grant.identity.with_number(number)
            if grant.identity.kind == "existing-pool":  # what the pool's nodes run as, read at preview
                member = pool_members[grant.identity.member]
            # the grant names the node SA (which must exist) or a principal of the cluster's workload pool
            deps = [d for d in (self.buckets.get(grant.bucket or ""),
                                node_service_account if grant.identity.kind == "node" else None,
                                cluster if grant.identity.kind == "workload-identity" else None) if d is not None]
            grant_opts = pulumi.ResourceOptions(parent=parent, depends_on=deps or None,
                                                **child_options("grant", protected))
            if grant.bucket:
                self.grants.append(gcp.storage.BucketIAMMember(
                    grant.resource_name(name), bucket=grant.bucket, role=grant.role, member=member, opts=grant_opts))
            else:
                self.grants.append(gcp.projects.IAMMember(
                    grant.resource_name(name), project=grant.project, role=grant.role, member=member, opts=grant_opts))

    @property
    def before_workloads(self) -> list[pulumi.Resource]:
        """What a workload's pods need in place: their service accounts, bindings and grants."""
        return [*self.service_accounts, *self.bindings, *self.grants]


def readable_pool_members(value: Any, members: Mapping[str, pulumi.Output[Optional[str]]]) -> Any:
    """`value` (a report, a list of texts) with each existing pool's member stand-in replaced by the member read at
    preview; where it is not known (an offline plan), by words that say so."""
    if not members:
        return value
    if isinstance(value, str):
        used = [m for m in members if m in value]
        if not used:
            return value

        async def text() -> str:
            out = value
            for marker in used:
                known = await members[marker].future(with_unknowns=True)
                pool = POOL_MEMBER_PATTERN.search(marker)
                out = out.replace(marker, known if isinstance(known, str) else
                                  f"<the service account of node pool {pool[1] if pool else '?'}, read at preview>")
            return out
        return pulumi.Output.from_input(text())
    if isinstance(value, Mapping):
        return {k: readable_pool_members(v, members) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [readable_pool_members(v, members) for v in value]
    return value
