"""PathwaysCluster: GKE cluster -> CPU head pool + TPU slice pools -> controllers -> workloads.

A thin shell: every argument comes from the pure specs in gke/ (and the workload builders);
this module only turns them into resources with parents, dependencies and options.
"""

import operator
from typing import Any, Callable, Mapping, NotRequired, Optional, TypedDict

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from .access import Access, access_plan, egress, fixed_name, readable_pool_members
from .addons import services_spec
from .args import PathwaysClusterArgs, WorkloadPlacement, stack_input
from .component import checking_args, rehydrated, split_options
from .config.model import ClusterFacts
from .config.placement import Placement
from .config.stack import StackConfig, parse_stack
from .config.tpu import TpuPoolConfig
from .config.workloads import JaxWorkloadConfig, PathwaysWorkloadConfig
from .deferred import Deferred
from .gke.adopt import (adopted_cluster_problems, existing_node_pool_id, existing_pool_problems, pool_member,
                        pool_service_account)
from .gke.identity import POOL_MEMBER
from .gke.cluster_spec import (CLUSTER_TIMEOUTS, cluster_args, cluster_ignore_changes, node_service_account_roles,
                               cluster_identifier, webhook_firewall_args)
from .gke.kubeconfig import kubeconfig
from .gke.observability import alert_policy_specs, console_links
from .gke.nodepools import NodePoolSpec, cpu_pool_spec, tpu_pool_specs, workload_policy_args
from .naming import node_service_account_id, workload_policy_name
from .protection import child_options, protect_child
from .services import ClusterServices
from .tokens import PATHWAYS_CLUSTER, TPU_SLICE_GROUP
from .workloads.jax import JaxWorkload, jax_args_from_stack
from .workloads.pathways import PathwaysWorkload, pathways_args_from_stack
from .workloads.serving import PathwaysServing, serving_args_from_stack


def node_pool(spec: NodePoolSpec, parent: pulumi.Resource, depends_on: Optional[list] = None,
              protect: Optional[bool] = None, retain_on_delete: Optional[bool] = None) -> gcp.container.NodePool:
    """`protect`: the decided protect (protection.py); None keeps the spec's (cluster.protect / pool.protect)."""
    timeouts = pulumi.CustomTimeouts(**spec.custom_timeouts) if spec.custom_timeouts else None
    return gcp.container.NodePool(
        spec.resource_name,
        opts=pulumi.ResourceOptions(
            parent=parent,
            depends_on=depends_on,
            ignore_changes=list(spec.ignore_changes) or None,
            replace_on_changes=list(spec.replace_on_changes) or None,
            delete_before_replace=spec.delete_before_replace,
            protect=spec.protect if protect is None else protect,
            retain_on_delete=retain_on_delete,
            custom_timeouts=timeouts,
        ),
        **spec.args,
    )


def infrastructure_protected(stack: StackConfig, opts: Optional[pulumi.ResourceOptions]) -> bool:
    """The component's `protect` option, or the stack's `cluster.protect`: either protects the infrastructure."""
    return bool(opts is not None and opts.protect) or stack.cluster.protect


class TpuSliceGroupArgs(TypedDict):
    """Inputs of a TpuSliceGroup (a PathwaysCluster child): its cluster's facts and its own pool group."""

    cluster: ClusterFacts
    """What it reads about its cluster (name, location, project, labels, protect)."""
    pool: TpuPoolConfig
    """The TPU pool group."""
    gke_cluster: Any
    """The GKE cluster its node pools join (its name, or an Output of it)."""
    service_account: Any
    """The nodes' service account email (None: the Compute Engine default)."""
    grants: NotRequired[list]
    """The node service account's role grants; the slices wait for them (image pulls and log writes fail until
    they propagate)."""
    protected: NotRequired[bool]
    """Whether the infrastructure is protected (default: cluster.protect); `pool.protect` overrides it for this
    group's node pools."""


class TpuSliceGroup(pulumi.ComponentResource):
    """One TPU pool group: a NodePool per slice (+ the tpu7x workload policy they share)."""

    node_pools: list
    shape: Any

    def __init__(self, name: str, args: TpuSliceGroupArgs, opts: Optional[pulumi.ResourceOptions] = None):
        if rehydrated(self, TPU_SLICE_GROUP, name, opts):
            return
        cluster, pool, grants = args["cluster"], args["pool"], args.get("grants") or []
        # its children take nothing of its opts: they register after it, so after its depends_on
        own, _ = split_options(opts)
        super().__init__(TPU_SLICE_GROUP, name, None, own)
        protected = args.get("protected")
        protected = cluster.protect if protected is None else protected
        pools_protected = protected if pool.protect is None else pool.protect
        self.config = pool
        self.shape = pool.shape
        policy_name = None
        self.workload_policy = None
        component = name.rsplit(f"-{pool.name}", 1)[0]
        self.node_pool_names = [pool.node_pool_name(cluster.name, i) for i in range(pool.slices)]
        if not pool.create:
            # an adopted cluster's existing slices (XPK's): read at preview, never created, changed or deleted
            self.node_pools = [
                gcp.container.NodePool.get(
                    f"{component}-{pool.name}-{i}", existing_node_pool_id(cluster, pool_name),
                    opts=pulumi.ResourceOptions(parent=self, **child_options("adopted", pools_protected)))
                for i, pool_name in enumerate(self.node_pool_names)]
            self._register(pool)
            return
        if self.shape.needs_workload_policy:
            self.workload_policy = gcp.compute.ResourcePolicy(
                f"{name}-wp",
                # a fixed name and no update (every field is force-new): the old one goes first
                opts=pulumi.ResourceOptions(parent=self, delete_before_replace=True,
                                            **child_options("workload-policy", pools_protected)),
                **workload_policy_args(cluster, pool, workload_policy_name(cluster.name, pool.name)),
            )
            policy_name = self.workload_policy.name
        self.node_pools = [
            node_pool(spec, self, depends_on=grants or None, **child_options("node-pool", pools_protected))
            for spec in tpu_pool_specs(cluster, pool, component=component, cluster=args["gke_cluster"],
                                       service_account=args["service_account"], policy_name=policy_name)
        ]
        self._register(pool)

    def _register(self, pool: TpuPoolConfig) -> None:
        self.register_outputs({
            "nodePoolNames": self.node_pool_names,
            "acceleratorType": self.shape.shorthand,
            "topology": self.shape.topology,
            "machineType": self.shape.machine_type,
            "vmsPerSlice": self.shape.vms_per_slice,
        })


class PathwaysCluster(pulumi.ComponentResource):
    """Pathways on GKE as one resource graph: a GKE cluster (created or adopted), a CPU pool for the Pathways head, one TPU node pool per slice, the JobSet controller (+ Kueue) and the workloads."""

    cluster_name: pulumi.Output[str]
    """GKE cluster name."""
    location: pulumi.Output[str]
    """Region or zone of the cluster."""
    project: pulumi.Output[str]
    """GCP project of the cluster."""
    endpoint: pulumi.Output[str]
    """IP address of the cluster's control plane."""
    kubeconfig: pulumi.Output[str]
    """Kubeconfig (secret) authenticating through gke-gcloud-auth-plugin; no token is embedded."""
    cpu_pool_name: pulumi.Output[str]
    """GKE node-pool name of the CPU (head) pool."""
    tpu_pool_names: pulumi.Output[dict[str, list[str]]]
    """GKE node-pool names per TPU pool group."""
    tpu_pools: pulumi.Output[dict[str, WorkloadPlacement]]
    """Per TPU pool group, a workload's placement args: pass them unchanged to PathwaysWorkload or JaxWorkload."""
    namespace: pulumi.Output[str]
    """Kubernetes namespace of the workloads."""
    node_service_account_email: Optional[pulumi.Output[str]]
    """Email of the nodes' service account (unset: the Compute Engine default)."""
    queue_name: Optional[pulumi.Output[str]]
    """Kueue LocalQueue workloads are submitted to (when Kueue is enabled)."""
    jax_backend_targets: pulumi.Output[dict[str, str]]
    """In-cluster JAX_BACKEND_TARGET (grpc://<head>:29000) per Pathways workload."""
    identities: pulumi.Output[dict[str, Any]]
    """Per workload: the GCP identity each pod runs as, what it can write/read, and who grants it."""
    actions_required: pulumi.Output[list[str]]
    """Grants and network setup this stack cannot make itself (bucket in another project, user-managed SA, NAT)."""
    console_links: Optional[pulumi.Output[dict[str, Any]]]
    """Cloud Console links: cluster, TPU dashboards, and per workload its JobSet page and logs (observability.consoleLinks)."""
    serving_endpoints: Optional[pulumi.Output[dict[str, str]]]
    """In-cluster URL of each serving workload's Service (mode serving)."""
    client_targets: Optional[pulumi.Output[dict[str, dict[str, str]]]]
    """Per service-mode workload, each client's JAX_BACKEND_TARGET (its own proxy's Service)."""
    connect: pulumi.Output[dict[str, dict[str, Any]]]
    """Per Pathways workload, what to connect with (docs/connect.md): portForwardCommand (from a laptop), jaxBackendTarget (in-cluster), endpoint and loadBalancerAddress (serving), clientTargets and clientPortForwardCommands (service mode)."""

    def __init__(self, name: str, args: PathwaysClusterArgs, opts: Optional[pulumi.ResourceOptions] = None):
        """`args`: PathwaysClusterArgs (snake_case or camelCase keys). A program that already validated its stack
        builds the component with `PathwaysCluster.from_stack`."""
        if rehydrated(self, PATHWAYS_CLUSTER, name, opts):
            return
        # validate everything before the first registration: a bad config registers nothing
        deferred = Deferred()
        with checking_args():
            config = stack_input(args, deferred)
            stack = parse_stack(config)
        if deferred:
            # Outputs (network, images, labels, ...) were validated as stand-ins; each is validated with the
            # same models once known, and swapped into every child's inputs by the transformation on `own`
            deferred.validate_with(config, parse_stack)
        self._build(name, stack, args.get("secrets"), opts, deferred)

    @classmethod
    def from_stack(cls, name: str, stack: StackConfig,
                   secrets: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]] = None,
                   opts: Optional[pulumi.ResourceOptions] = None) -> "PathwaysCluster":
        """A PathwaysCluster of a stack the program already validated (config/stack.py reads the stack file as
        the Pulumi CLI does), with the values of its secrets (the names are the stack's, so a whole-map Output
        is fine). The same resources, names and outputs as the args form."""
        self = cls.__new__(cls)
        if not rehydrated(self, PATHWAYS_CLUSTER, name, opts):
            self._build(name, stack, secrets, opts, Deferred())
        return self

    def _build(self, name: str, stack: StackConfig,
               secrets: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]],
               opts: Optional[pulumi.ResourceOptions], deferred: Deferred) -> None:
        """Registers the component and its children from a validated stack (nothing was registered before)."""
        self.deferred = deferred
        # its children take nothing of its opts: they register after it, so after its depends_on; a replaced
        # pool replaces only the JobSets on it (`_workloads`)
        own, _ = split_options(opts, deferred)
        super().__init__(PATHWAYS_CLUSTER, name, None, own)
        self.stack = stack
        self.secrets = secrets
        # every child sets protect from one table (protection.py); inheriting the component's would
        # protect the JobSets too
        self.protected = protected = infrastructure_protected(stack, opts)
        component = protect_child("component", protected)
        facts = ClusterFacts.of(stack)  # what the child components read about this cluster

        service_account = self._node_service_account(name, stack)
        grants = list(self.node_service_account_roles)  # node pools wait for them
        if stack.cluster.create:
            self.cluster = gcp.container.Cluster(
                f"{name}-cluster",
                # a fixed GKE name: a replacement must delete the old cluster first (else 409)
                opts=pulumi.ResourceOptions(parent=self, **child_options("cluster", protected),
                                            delete_before_replace=True,
                                            ignore_changes=list(cluster_ignore_changes(stack)),
                                            custom_timeouts=pulumi.CustomTimeouts(**CLUSTER_TIMEOUTS)),
                **cluster_args(stack, service_account),
            )
            cluster_ref: Any = self.cluster.name
            endpoint, ca = self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate
        else:
            # adopt: read the existing cluster (a `read` step in preview; never created or deleted by us)
            self.cluster = gcp.container.Cluster.get(
                f"{name}-cluster",
                f"projects/{stack.project}/locations/{stack.cluster.location}/clusters/{stack.cluster.name}",
                opts=pulumi.ResourceOptions(parent=self, **child_options("adopted", protected)))
            # its node pools, read at preview (an invoke): names this stack must not take, the existing pools it runs
            # on, and the service accounts their nodes run as
            self.existing_node_pools = gcp.container.get_cluster_output(
                name=stack.cluster.name, location=stack.cluster.location, project=stack.project,
                opts=pulumi.InvokeOutputOptions(parent=self)).node_pools.apply(_plain)
            # its prerequisites are checked from what was read (a component output, so the engine awaits it)
            self.adoption_check = self._adoption_check(stack)
            cluster_ref = stack.cluster.name
            endpoint, ca = self.cluster.endpoint, self.cluster.master_auth.cluster_ca_certificate

        firewall = webhook_firewall_args(stack)
        self.webhook_firewall = gcp.compute.Firewall(
            # a fixed name per project: a replacement (new network, direction) must delete the old rule first
            f"{name}-webhooks", opts=fixed_name(self, **child_options("webhook-firewall", protected)),
            **firewall) if firewall else None
        # private nodes reach registry.k8s.io (the controllers' images) only through Cloud NAT
        self.egress = egress(self, name, stack, protected)
        if stack.cpu_pool.create:
            self.cpu_pool = node_pool(
                cpu_pool_spec(stack, component=name, cluster=cluster_ref, service_account=service_account), self,
                depends_on=grants or None, **child_options("node-pool", protected))
        else:
            # an existing head pool (XPK's cpu-np) is read, never created, changed or deleted
            self.cpu_pool = gcp.container.NodePool.get(
                f"{name}-cpu", existing_node_pool_id(facts, stack.cpu_pool.name),
                opts=pulumi.ResourceOptions(parent=self, **child_options("adopted", protected)))
        self.tpu_groups = {
            pool.name: TpuSliceGroup(f"{name}-{pool.name}",
                                     {"cluster": facts, "pool": pool, "gke_cluster": cluster_ref,
                                      "service_account": service_account, "grants": grants, "protected": protected},
                                     pulumi.ResourceOptions(parent=self, protect=component))
            for pool in stack.tpu_pools
        }

        self._ca_certificate = ca  # the provider's clusterIdentifier is read from it (per cluster instance)
        context = f"gke_{stack.project}_{stack.cluster.location}_{stack.cluster.name}"
        self.kubeconfig = pulumi.Output.secret(
            pulumi.Output.all(endpoint, ca).apply(lambda v: kubeconfig(context, v[0], v[1])))
        self.kubernetes_provider = self._kubernetes_provider(name, stack, opts)

        # JobSet controller, readiness gate, namespace, Kueue (ClusterServices).
        # Depends on the CPU pool only (never a TPU pool); workloads depend_on self.services.ready.
        self.install_provider = self._install_provider(name, stack, opts)
        self.services = ClusterServices(
            f"{name}-services",
            {"cluster": facts, "services": services_spec(stack), "cpu_pool": self.cpu_pool,
             "install_provider": self.install_provider,
             "protected": protected},
            pulumi.ResourceOptions(parent=self, protect=component, providers={"kubernetes": self.kubernetes_provider},
                                   depends_on=list(self.egress) or None))
        # who each pod is to GCP, and the service accounts, buckets and grants that makes necessary
        pool_members = self._existing_pool_members(stack)
        self.access = Access(name, {"cluster": facts, "plan": access_plan(stack), "pool_members": pool_members,
                                    "gke_cluster": self.cluster if stack.cluster.create else None,
                                    "node_service_account": getattr(self, "node_service_account", None),
                                    "kubernetes": self.kubernetes_provider,
                                    "namespace_ready": list(self.services.ready), "protected": protected,
                                    "resolve": deferred.resolve},
                             pulumi.ResourceOptions(parent=self))
        # one workload component per stack.workloads entry
        self.workloads = self._workloads(name, stack, secrets)
        # optional alert policies: GCP resources with server-assigned names (replaceable, deleted on destroy)
        self.alert_policies = [
            gcp.monitoring.AlertPolicy(f"{name}-{suffix}", **policy, opts=pulumi.ResourceOptions(
                parent=self, **child_options("alert-policy", protected)))
            for suffix, policy in alert_policy_specs(stack)
        ]

        self.cluster_name = pulumi.Output.from_input(cluster_ref)
        self.location = pulumi.Output.from_input(stack.cluster.location)
        self.project = pulumi.Output.from_input(stack.project)
        self.endpoint = pulumi.Output.from_input(endpoint)
        self.cpu_pool_name = pulumi.Output.from_input(stack.cpu_pool.name)
        self.tpu_pool_names = pulumi.Output.from_input(
            {g: group.node_pool_names for g, group in self.tpu_groups.items()})
        self.tpu_pools = pulumi.Output.from_input(tpu_placements(stack))
        self.namespace = pulumi.Output.from_input(stack.namespace)
        self.node_service_account_email = (pulumi.Output.from_input(deferred.resolve(service_account))
                                           if service_account is not None else None)
        self.queue_name = (pulumi.Output.from_input(self.services.queue_name)
                           if self.services.queue_name else None)
        # Output.from_input resolves Outputs nested in a dict; its hint (Input[T] -> Output[T]) cannot say so
        self.jax_backend_targets = pulumi.Output.from_input(
            {n: w.jax_backend_target for n, w in self.workloads.items()  # type: ignore[misc]
             if isinstance(w, PathwaysWorkload)})
        # the report names values that may still be Outputs (a node SA email): their stand-ins resolve here
        self.identities = pulumi.Output.from_input(
            readable_pool_members(deferred.resolve(self.access.report), pool_members))
        self.actions_required = pulumi.Output.from_input(
            readable_pool_members(deferred.resolve(self.access.actions), pool_members))
        self.console_links = (pulumi.Output.from_input(console_links(stack))
                              if stack.observability.console_links else None)
        serving = {n: w for n, w in self.workloads.items() if isinstance(w, PathwaysServing)}
        endpoints = {n: w.endpoint for n, w in serving.items() if w.endpoint is not None}
        clients = {n: w.client_targets for n, w in serving.items() if w.client_targets is not None}
        self.serving_endpoints = pulumi.Output.from_input(endpoints) if endpoints else None  # type: ignore[arg-type]
        self.client_targets = pulumi.Output.from_input(clients) if clients else None  # type: ignore[arg-type]
        self.connect = pulumi.Output.from_input(connect_outputs(self.workloads))
        self.register_outputs({
            "clusterName": self.cluster_name,
            "location": self.location,
            "project": self.project,
            "endpoint": self.endpoint,
            "kubeconfig": self.kubeconfig,
            "cpuPoolName": self.cpu_pool_name,
            "tpuPoolNames": self.tpu_pool_names,
            "tpuPools": self.tpu_pools,
            "namespace": self.namespace,
            "nodeServiceAccountEmail": self.node_service_account_email,
            "queueName": self.queue_name,
            "jaxBackendTargets": self.jax_backend_targets,
            "identities": self.identities,
            "actionsRequired": self.actions_required,
            **({"adoptedClusterChecked": self.adoption_check} if not stack.cluster.create else {}),
            "consoleLinks": self.console_links,
            "servingEndpoints": self.serving_endpoints,
            "clientTargets": self.client_targets,
            "connect": self.connect,
        })

    def _workloads(self, name: str, stack: StackConfig,
                   secrets: Optional[pulumi.Input[Mapping[str, pulumi.Input[str]]]]) -> dict:
        """One workload component per `stack.workloads` entry.

        Each waits for the JobSet webhook (services.ready) and for the pools it runs on, so that a
        destroy removes the JobSet before its nodes; a replaced pool replaces the JobSet that ran on it
        (its spec is immutable).
        """
        ready = [*self.services.ready, *self.access.before_workloads]
        if self.webhook_firewall is not None:  # a private control plane reaches the webhook only through it
            ready.append(self.webhook_firewall)
        values: dict[str, pulumi.Input[str]] = {} if secrets is None else {
            key: pulumi.Output.secret(pulumi.Output.from_input(secrets).apply(operator.itemgetter(key)))
            for key in stack.secret_names
        }
        out: dict[str, pulumi.ComponentResource] = {}
        for workload in stack.workloads:
            # the pools its workers run on: a TPU group's slices, or the CPU pool for CPU jax workloads
            # (every group of an ordered fallback list)
            pools = [pool for group in workload.pool_groups for pool in self.tpu_groups[group].node_pools] \
                if workload.pool_groups else [self.cpu_pool]
            # a Pathways head also runs on the CPU pool; it is rescheduled, not replaced, when that pool changes
            head = [self.cpu_pool] if isinstance(workload, PathwaysWorkloadConfig) else []
            component: Any
            args: Any
            if isinstance(workload, JaxWorkloadConfig):
                component, args = JaxWorkload, jax_args_from_stack(stack, workload, values)
            elif workload.on_lws:  # serving / service: a LeaderWorkerSet (workloads/serving.py)
                component, args = PathwaysServing, serving_args_from_stack(stack, workload, values)
            else:
                component, args = PathwaysWorkload, pathways_args_from_stack(stack, workload, values)
            out[workload.name] = component(
                f"{name}-{workload.name}", args,
                pulumi.ResourceOptions(parent=self, providers=[self.kubernetes_provider],
                                       **child_options("workload", self.protected),
                                       depends_on=[*ready, *head, *pools], replace_with=pools),
            )
        return out

    def _node_service_account(self, name: str, stack: StackConfig) -> Any:
        self.node_service_account_roles: list = []
        sa = stack.cluster.node_service_account
        if sa.email:
            return sa.email
        if not sa.create:
            return None  # GKE's default: the Compute Engine default service account
        self.node_service_account = gcp.serviceaccount.Account(
            f"{name}-node-sa",
            opts=pulumi.ResourceOptions(parent=self, **child_options("node-service-account", self.protected)),
            account_id=node_service_account_id(stack.cluster.name, stack.cluster.location),
            display_name=f"GKE nodes of {stack.cluster.name} (pathways-gke)",
            project=stack.project,
        )
        member = self.node_service_account.email.apply(lambda email: f"serviceAccount:{email}")
        self.node_service_account_roles = [
            gcp.projects.IAMMember(
                f"{name}-node-sa-{role.split('/')[-1].replace('.', '-').lower()}",
                opts=pulumi.ResourceOptions(parent=self,
                                            **child_options("node-service-account-role", self.protected)),
                project=stack.project, role=role, member=member,
            )
            for role in node_service_account_roles(stack)
        ]
        return self.node_service_account.email

    def _adoption_check(self, stack: StackConfig) -> pulumi.Output[str]:
        """The adopted cluster's name once its read state has passed `adopted_cluster_problems`.

        Failing here stops `pulumi preview` (RunError: a plain message, no traceback) before anything is created.
        """
        c = self.cluster

        def check(key: str):
            def run(value: Any) -> str:
                problems = adopted_cluster_problems({key: _plain(value)}, stack)
                if problems:
                    raise pulumi.RunError("the adopted cluster is missing what this stack needs:\n"
                                          + "\n".join(f"  - {p}" for p in problems))
                return key
            return run

        def check_pools(pools: Any) -> str:
            problems = existing_pool_problems(pools, stack)
            if problems:
                raise pulumi.RunError("the adopted cluster's node pools do not fit this stack:\n"
                                      + "\n".join(f"  - {p}" for p in problems))
            return "nodePools"

        # one apply per property: each runs as soon as its value is read (an unknown one is skipped)
        checks = [self.existing_node_pools.apply(check_pools)]
        checks += [output.apply(check(key)) for key, output in (
            ("workloadIdentityConfig", c.workload_identity_config), ("datapathProvider", c.datapath_provider),
            ("addonsConfig", c.addons_config), ("releaseChannel", c.release_channel),
            ("masterVersion", c.master_version))]
        return pulumi.Output.all(*checks).apply(lambda _: stack.cluster.name)

    def _existing_pool_members(self, stack: StackConfig) -> dict[str, pulumi.Output[Optional[str]]]:
        """For each existing node pool the stack's hostNetwork pods run on (cpuPool.create: false, a tpuPools group
        with create: false): the IAM member its nodes run as, from the pools read at preview (by its stand-in)."""
        pools = ([] if stack.cpu_pool.create else [stack.cpu_pool.name]) + [
            group.node_pool_name(stack.cluster.name, 0) for group in stack.tpu_pools if not group.create]
        if not pools:
            return {}
        number: Any = stack.cluster.project_number
        if number is None:  # the Compute Engine default account's email names the project number
            number = gcp.organizations.get_project_output(project_id=stack.project,
                                                          opts=pulumi.InvokeOutputOptions(parent=self)).number
        def member_of(pool: str) -> Callable[[list], Optional[str]]:
            return lambda read: pool_member(pool_service_account(read[0], pool), read[1])

        return {POOL_MEMBER % pool: pulumi.Output.all(self.existing_node_pools, number).apply(member_of(pool))
                for pool in pools}

    def _install_provider(self, name: str, stack: StackConfig,
                          opts: Optional[pulumi.ResourceOptions]) -> Optional[k8s.Provider]:
        """For an adopted cluster: a provider for the JobSet/Kueue installs only, with `upsertExistingObjects`, so
        objects XPK, Cluster Toolkit or kubectl created are taken over instead of failing with AlreadyExists
        (pulumi-kubernetes >= 4.2x creates strictly otherwise). Everything else keeps strict creation."""
        if stack.cluster.create or consumer_provider(opts, "kubernetes") is not None:
            return None
        return self._cluster_provider(f"{name}-kubernetes-installs", stack, f"{name}-k8s-installs",
                                      upsert_existing_objects=True)

    def _kubernetes_provider(self, name: str, stack: StackConfig,
                             opts: Optional[pulumi.ResourceOptions]) -> pulumi.ProviderResource:
        """The consumer's kubernetes provider if they passed one, else one built from this cluster."""
        given = consumer_provider(opts, "kubernetes")
        if given is not None:
            return given
        return self._cluster_provider(f"{name}-kubernetes", stack, f"{name}-k8s")

    def _cluster_provider(self, resource_name: str, stack: StackConfig, old_name: str, **extra: Any) -> k8s.Provider:
        """A Kubernetes provider for this cluster: its kubeconfig, server-side apply, and an identity per cluster
        instance (apply_rules `k8s-provider-identity`): a re-created cluster replaces the provider and, through
        pulumi-kubernetes' DiffConfig, every object it manages; an update of the cluster replaces nothing.

        Its name changed (`old_name` is its alias) when the identity did: the engine does not replace a resource
        whose provider reference moves from an aliased old provider to the new one (step_generator.go
        providerChanged), so the one `pulumi up` that moves an existing stack from the name-only identifier to the
        per-instance one replaces the provider alone and no Kubernetes object."""
        return k8s.Provider(
            resource_name,
            opts=pulumi.ResourceOptions(parent=self, **child_options("kubernetes-provider", self.protected),
                                        aliases=[pulumi.Alias(name=old_name)]),
            kubeconfig=self.kubeconfig,
            cluster_identifier=pulumi.Output.from_input(self._ca_certificate).apply(
                lambda ca: cluster_identifier(stack, ca)),
            enable_server_side_apply=True,
            **extra,
        )


def _plain(value: Any) -> Any:
    """An output object / list read from the provider as plain dicts and lists."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def tpu_placements(stack: StackConfig) -> dict[str, WorkloadPlacement]:
    """Per TPU pool group, the placement args of a workload on it (output `tpuPools`)."""
    return {pool.name: Placement.for_pool(stack, pool).args() for pool in stack.tpu_pools}  # type: ignore[misc]


def consumer_provider(opts: Optional[pulumi.ResourceOptions], package: str) -> Optional[pulumi.ProviderResource]:
    if opts is None:
        return None
    candidates: list = []
    if isinstance(opts.providers, Mapping):
        candidates += list(opts.providers.values())
    elif opts.providers:
        candidates += list(opts.providers)
    if opts.provider is not None:
        candidates.append(opts.provider)
    for provider in candidates:
        if getattr(provider, "package", None) == package:
            return provider
    return None


def connect_outputs(workloads: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per Pathways workload its connect outputs (the workload components' own, gathered; multi-controller JAX
    workloads have none: nothing outside connects to them)."""
    out: dict[str, dict[str, Any]] = {}
    for name, w in workloads.items():
        if isinstance(w, PathwaysWorkload):
            out[name] = {"portForwardCommand": w.port_forward_command, "jaxBackendTarget": w.jax_backend_target}
        elif isinstance(w, PathwaysServing):
            entry = {"endpoint": w.endpoint, "portForwardCommand": w.port_forward_command,
                     "loadBalancerAddress": w.load_balancer_address, "clientTargets": w.client_targets,
                     "clientPortForwardCommands": w.client_port_forward_commands}
            out[name] = {k: v for k, v in entry.items() if v is not None}
    return out
