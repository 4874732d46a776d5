"""ClusterServices: the JobSet controller (+ Kueue and its queues), the workloads namespace and the
readiness gate every workload waits for. A thin shell over `pathways_gke.addons.services_spec`.

Graph (docs/jobset-and-kueue.md):

    cpu pool ──> <name>-jobset (yaml/v2 ConfigFile, awaited) ──> <name>-ready (ConfigMap) ──> workloads
             └─> <name>-kueue  (after jobset, awaited) ──> flavors, ClusterQueue, LocalQueue ─┘

With a serving or service workload, the LeaderWorkerSet controller too:

    cpu pool ──> <name>-lws (ConfigFile, awaited) ──> <name>-lws-gate (Job: the LWS webhook answers) ──> <name>-ready

No TPU node pool is an input: the controllers run on the CPU pool (nodeSelector transform) and the
install never waits for, or is replaced with, a slice.
"""

import re
from typing import Any, Callable, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from .addons import ServicesSpec
from .addons.install import (InstallSource, install_resource_name, is_protected_crd, legacy_child_name,
                             pin_to_node_pool, resource_prefix, with_force_apply)
from .addons.lws import GATE_DEADLINE_SECONDS
from .addons.jobset_config import with_feature_gates
from .addons.sizing import ControllerResources, size_controller
from .component import rehydrated, split_options
from .config.model import ClusterFacts
from .protection import child_options
from .tokens import CLUSTER_SERVICES


def keep_on_node_pool(node_pool: str) -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: every Deployment of the install gets `nodeSelector: {gke-nodepool: <node_pool>}`."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        props = pin_to_node_pool(args.type_, args.props or {}, node_pool)
        if props is None:
            return None
        return pulumi.ResourceTransformResult(props=props, opts=args.opts)

    return transform


def protect_crds(crds: tuple[str, ...], protected: bool = True) -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: every object of the install gets an explicit `protect` from `protection.protect_child`.

    The named CRDs (deleting the JobSet CRD deletes every JobSet) are protected exactly when the cluster
    is (`protected`); every other object never is, whatever the parent's protect."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        kind = "crd" if is_protected_crd(args.type_, args.props or {}, crds) else "controller"
        opts = pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(**child_options(kind, protected)))
        return pulumi.ResourceTransformResult(props=args.props, opts=opts)

    return transform


def alias_legacy_names(prefix: str, legacy_prefix: str) -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: each object keeps its URN of the old fixed prefix as an alias (`jobset:<ns>/<name>`).

    A stack created before the prefix became per-install moves its CRDs and controllers to the new names
    instead of replacing them. (Adding a second cluster to such a stack needs one `pulumi up` first: two
    installs claiming one old URN are refused by the engine.)"""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        old = legacy_child_name(args.name, prefix, legacy_prefix)
        if old is None:
            return None
        aliases = [*(args.opts.aliases or []), pulumi.Alias(name=old)]
        opts = pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(aliases=aliases))
        return pulumi.ResourceTransformResult(props=args.props, opts=opts)

    return transform


def retain_on_delete() -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: every object of the install is kept on `pulumi destroy` (an adopted cluster's controllers and
    the JobSet CRD may predate the stack: XPK or Cluster Toolkit installed them, and deleting the CRD deletes
    every JobSet in the cluster)."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        opts = pulumi.ResourceOptions.merge(args.opts, pulumi.ResourceOptions(retain_on_delete=True))
        return pulumi.ResourceTransformResult(props=args.props, opts=opts)

    return transform


def force_apply() -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: every manifest object is applied with `pulumi.com/patchForce` (like --force-conflicts)."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        props = with_force_apply(args.props or {})
        if props is None:
            return None
        return pulumi.ResourceTransformResult(props=props, opts=args.opts)

    return transform


def sized_for_cluster(resources: ControllerResources) -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: the controller Deployment's `manager` container gets the cluster-sized requests/limits."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        props = size_controller(args.type_, args.props or {}, resources)
        if props is None:
            return None
        return pulumi.ResourceTransformResult(props=props, opts=args.opts)

    return transform


def feature_gates(gates: dict[str, bool]) -> Callable[[pulumi.ResourceTransformArgs], Optional[pulumi.ResourceTransformResult]]:
    """Transform: the JobSet controller's configuration gets the stack's feature gates (and rolls the controller)."""

    def transform(args: pulumi.ResourceTransformArgs) -> Optional[pulumi.ResourceTransformResult]:
        props = with_feature_gates(args.type_, args.props or {}, gates)
        if props is None:
            return None
        return pulumi.ResourceTransformResult(props=props, opts=args.opts)

    return transform


def install_transforms(spec: ServicesSpec, addon: Optional[str] = None, protected: bool = False, prefix: str = "",
                       legacy_prefix: str = "", adopted: bool = False) -> list:
    """The transforms registered on one install (`addon`), in the order the engine applies them; on an adopted
    cluster every object is also retained on destroy."""
    sized = spec.resources.get(addon) if addon else None
    gates = dict(spec.jobset_feature_gates) if addon == "jobset" else {}
    out = [force_apply(), keep_on_node_pool(spec.cpu_pool), *([sized_for_cluster(sized)] if sized else []),
           *([feature_gates(gates)] if gates else []),
           protect_crds(spec.protected_crds, protected), *([retain_on_delete()] if adopted else [])]
    if prefix and legacy_prefix and prefix != legacy_prefix:
        out.append(alias_legacy_names(prefix, legacy_prefix))
    return out


class ClusterServicesArgs(TypedDict):
    """Inputs of a ClusterServices (a PathwaysCluster child): its cluster's facts and its own section, the
    services decided from the stack (`services_spec(stack)`, pure)."""

    cluster: ClusterFacts
    """What it reads about its cluster (whether the stack created or adopted it)."""
    services: ServicesSpec
    """The installs, namespace, queues, PriorityClasses and readiness gate to create (`services_spec`)."""
    cpu_pool: pulumi.Resource
    """The CPU node pool the controllers run on; every install waits for it."""
    install_provider: NotRequired[Optional[pulumi.ProviderResource]]
    """The Kubernetes provider of the JobSet/Kueue/LWS installs only (an adopted cluster's provider that takes
    over objects XPK or kubectl already created); the rest uses the inherited one."""
    protected: NotRequired[bool]
    """Whether the cluster's infrastructure is protected: the JobSet CRD and the namespace follow it; nothing
    else here is ever protected (protection.py)."""


class ClusterServices(pulumi.ComponentResource):
    """JobSet (+ Kueue) installed on the CPU pool, the workloads namespace, and readiness for workloads.

    Attributes:
        ready: resources every workload must `depends_on`: the awaited installs (JobSet, and Kueue when on)
            and the readiness gate (ConfigMap `pathways-gke-services`, created after the installs, the
            namespace, the PriorityClasses and the LocalQueue).
        installs: the yaml/v2 ConfigFiles (JobSet first).
        gate: the readiness-gate ConfigMap.
        namespace: the workloads' namespace.
        queue_name: the LocalQueue name workloads label themselves with, or None when Kueue is off.
        spec: the plain data this component was built from.
    """

    ready: list[pulumi.Resource]
    installs: list[pulumi.Resource]
    gate: pulumi.Resource
    namespace: str
    queue_name: Optional[str]
    spec: ServicesSpec

    def __init__(self, name: str, args: ClusterServicesArgs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        if rehydrated(self, CLUSTER_SERVICES, name, opts):
            return
        cluster, spec, cpu_pool = args["cluster"], args["services"], args["cpu_pool"]
        # its children take nothing of its opts: they register after it, so after its depends_on (router and NAT)
        own, _ = split_options(opts)
        super().__init__(CLUSTER_SERVICES, name, None, own)
        self._install_provider = args.get("install_provider")
        protected = args.get("protected", False)
        # an adopted cluster (cluster.create: false) may already run what XPK / Cluster Toolkit installed: the
        # installs and the PriorityClasses are taken over (upsert) and kept on destroy
        self.adopted = not cluster.created
        self.spec = spec
        self.protected = protected
        self.namespace = spec.namespace
        self.queue_name = spec.queue_name
        # XPK's very-low..very-high on an adopted cluster: same names and values, taken over (upsert) and kept on
        # destroy; the upserting provider makes a delete-first replacement of a kept one safe (no 409)
        kept = child_options("priority-class", protected)
        child = pulumi.ResourceOptions(parent=self, protect=kept["protect"],
                                       retain_on_delete=True if self.adopted else kept["retain_on_delete"],
                                       provider=self._install_provider if self.adopted else None)

        namespace: list[pulumi.Resource] = []
        if spec.namespace_object is not None:
            namespace.append(k8s.core.v1.Namespace(
                f"{name}-namespace", metadata=spec.namespace_object["metadata"],
                opts=pulumi.ResourceOptions(parent=self, **child_options("namespace", protected))))

        jobset = self._install(name, "jobset", spec.jobset, spec, depends_on=[cpu_pool])
        kueue = (self._install(name, "kueue", spec.kueue, spec, depends_on=[cpu_pool, jobset])
                 if spec.kueue is not None else None)
        installs = [jobset] + ([kueue] if kueue is not None else [])
        gate_job: list[pulumi.Resource] = []
        if spec.lws is not None:
            lws = self._install(name, "lws", spec.lws, spec, depends_on=[cpu_pool])
            installs.append(lws)
            gate_job = [self._lws_gate(name, spec, depends_on=[lws, *namespace])]

        priorities = [
            k8s.scheduling.v1.PriorityClass(
                f"{name}-{suffix}", metadata=obj["metadata"], value=obj["value"],
                global_default=obj["globalDefault"], preemption_policy=obj["preemptionPolicy"],
                description=obj["description"], opts=child)
            for suffix, obj in spec.priority_classes
        ]

        queues: dict[str, pulumi.Resource] = {}
        for suffix, obj in spec.kueue_objects:
            needs_namespace = "namespace" in obj["metadata"]
            # a Topology's levels are immutable (apply_rules kueue-topology-levels): replaced, under its fixed name
            topology = obj["kind"] == "Topology"
            queues[suffix] = k8s.apiextensions.CustomResource(
                f"{name}-{suffix}", api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"],
                spec=obj["spec"],
                opts=pulumi.ResourceOptions(parent=self, **child_options("queue", protected),
                                            replace_on_changes=["spec.levels"] if topology else None,
                                            delete_before_replace=True if topology else None,
                                            depends_on=[*installs, *(namespace if needs_namespace else [])]))

        # multi-tier checkpointing: the kind comes with the cluster's HighScaleCheckpointing add-on
        checkpointing = [
            k8s.apiextensions.CustomResource(
                f"{name}-{suffix}", api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"],
                spec=obj["spec"], opts=pulumi.ResourceOptions(parent=self, **child_options("checkpointing", protected)))
            for suffix, obj in spec.checkpoint_configurations
        ]
        for suffix, obj in spec.network_objects:  # the second NIC's networks (cluster-scoped; GKE's CRDs)
            k8s.apiextensions.CustomResource(
                f"{name}-{suffix}", api_version=obj["apiVersion"], kind=obj["kind"], metadata=obj["metadata"],
                spec=obj["spec"], opts=pulumi.ResourceOptions(parent=self, **child_options("queue", protected)))

        # The gate is created last: after the awaited installs (controller Deployments Available, so the
        # webhooks answer), the namespace, the PriorityClasses and the LocalQueue.
        marker = spec.marker
        gate = k8s.core.v1.ConfigMap(
            f"{name}-ready", metadata=marker["metadata"], data=marker["data"],
            opts=pulumi.ResourceOptions(parent=self, **child_options("readiness", protected), depends_on=[
                *installs, *namespace, *priorities, *([queues["local-queue"]] if "local-queue" in queues else []),
                *gate_job, *checkpointing]))

        self.installs = installs
        self.gate = gate
        self.ready = [*installs, gate]
        self.register_outputs({
            "namespace": spec.namespace,
            "jobsetVersion": spec.jobset.version,
            "jobsetSource": spec.jobset.file,
            "kueueVersion": spec.kueue.version if spec.kueue else None,
            "lwsVersion": spec.lws.version if spec.lws else None,
            "queueName": spec.queue_name,
            "controllerResources": {addon: {"nodes": r.nodes, **r.as_resources()}
                                    for addon, r in spec.resources.items()},
        })

    def _lws_gate(self, name: str, spec: ServicesSpec, depends_on: list[Any]) -> pulumi.Resource:
        """The LWS webhook gate (addons/lws.py): identity, permission and probe, then the awaited Job."""
        kinds = {"ServiceAccount": k8s.core.v1.ServiceAccount, "Role": k8s.rbac.v1.Role,
                 "RoleBinding": k8s.rbac.v1.RoleBinding, "ConfigMap": k8s.core.v1.ConfigMap}
        before: list[pulumi.Resource] = []
        job: Optional[pulumi.Resource] = None
        for suffix, obj in spec.lws_gate:
            body = {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): v for k, v in obj.items()
                    if k not in ("apiVersion", "kind")}  # top-level keys as the SDK's arguments (roleRef -> role_ref)
            if obj["kind"] == "Job":
                job = k8s.batch.v1.Job(
                    f"{name}-{suffix}", **body,
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[*depends_on, *before],
                                                **child_options("readiness", self.protected),
                                                # a Job's pod template is immutable: a new gate image is a new Job
                                                replace_on_changes=["spec"], delete_before_replace=True,
                                                # await as long as the Job itself may retry
                                                custom_timeouts=pulumi.CustomTimeouts(
                                                    create=f"{GATE_DEADLINE_SECONDS // 60}m")))
            else:
                before.append(kinds[obj["kind"]](
                    f"{name}-{suffix}", **body,
                    # fixed names (a RoleBinding's roleRef is immutable): a replacement deletes the old object first
                    opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on, delete_before_replace=True,
                                                **child_options("readiness", self.protected))))
        assert job is not None
        return job

    def _install(self, name: str, addon: str, source: InstallSource, spec: ServicesSpec,
                 depends_on: list[Any]) -> pulumi.Resource:
        """One controller from its release manifest (or local copy), server-side applied, awaited.

        Its children are named `<prefix>:<namespace>/<name>` with the prefix = this ConfigFile's name, so two
        clusters in one program never share a child URN (addons/install.py)."""
        install = install_resource_name(name, addon)
        prefix = resource_prefix(install)
        return k8s.yaml.v2.ConfigFile(
            install,
            file=source.file,
            resource_prefix=prefix,
            skip_await=False,
            opts=pulumi.ResourceOptions(
                parent=self, depends_on=depends_on, **child_options("install", self.protected),
                providers={"kubernetes": self._install_provider} if self._install_provider is not None else None,
                transforms=install_transforms(spec, addon, self.protected, prefix, source.legacy_prefix,
                                              self.adopted)),
        )
