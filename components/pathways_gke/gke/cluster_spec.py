"""The GKE cluster's pulumi_gcp arguments and the node service account's roles, as plain data."""

from __future__ import annotations

import hashlib

from typing import Any, Optional

from ..config.stack import StackConfig
from ..gke_rules import PROVIDER_DEFAULT_TIMEOUT_MINUTES
from ..naming import (MANAGED_BY_GCE_LABELS, nat_name, node_service_account_id, router_name,
                      webhook_firewall_name)
from ..tokens import GKE_CLUSTER
from .nodepools import CLOUD_PLATFORM_SCOPE

# Project-level roles of the node service account the stack creates: logging, monitoring (metricWriter also
# serves `pathways.metrics` of hostNetwork pods), pulling images, and read-only objects. This is NOT all a node
# needs: hostNetwork pods (Pathways, TPU JAX) act as this account, and they write their scratch location and
# any read/write bucket — those are bucket-level roles/storage.objectUser grants (gke/identity.py).
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/artifactregistry.reader",
    "roles/logging.logWriter",
    "roles/monitoring.metricWriter",
    "roles/monitoring.viewer",
    "roles/stackdriver.resourceMetadata.writer",
    "roles/storage.objectViewer",
)
# Image streaming with a custom node service account: the nodes call the Container File System API as that account,
# which needs serviceusage.services.use (https://cloud.google.com/kubernetes-engine/docs/how-to/image-streaming#requirements)
SERVICE_USAGE_CONSUMER = "roles/serviceusage.serviceUsageConsumer"
CONTAINER_FILESYSTEM_API = "containerfilesystem.googleapis.com"
CLOUD_DNS_API = "dns.googleapis.com"
# Managed Service for Prometheus' collectors and the alert policies write to / are Cloud Monitoring resources
# (https://cloud.google.com/stackdriver/docs/managed-prometheus/setup-managed: metrics are stored in Monarch through
# the Cloud Monitoring API; gcp:monitoring/alertPolicy is a Cloud Monitoring API resource)
MONITORING_API = "monitoring.googleapis.com"


def image_streaming_pools(stack: StackConfig) -> list[str]:
    """Config paths of the pools this stack creates with image streaming (GCFS) on."""
    paths = ["cpuPool"] if stack.cpu_pool.create and stack.cpu_pool.image_streaming else []
    return paths + [f"tpuPools[{i}]" for i, p in enumerate(stack.tpu_pools) if p.create and p.image_streaming]


def node_service_account_roles(stack: StackConfig) -> tuple[str, ...]:
    """Project roles of the node service account the stack creates (serviceUsageConsumer with image streaming)."""
    return NODE_SERVICE_ACCOUNT_ROLES + ((SERVICE_USAGE_CONSUMER,) if image_streaming_pools(stack) else ())


def required_apis(stack: StackConfig) -> dict[str, str]:
    """API -> what needs it, beyond GKE's own (container.googleapis.com): the stack does not enable APIs."""
    out: dict[str, str] = {}
    if streaming := image_streaming_pools(stack):
        out[CONTAINER_FILESYSTEM_API] = f"image streaming ({', '.join(streaming)})"
    if stack.cluster.create and cluster_dns(stack) == "cloud-dns":
        out[CLOUD_DNS_API] = f"Cloud DNS (cluster.dns: {stack.cluster.dns})"
    monitoring = [what for what, on in (("managed Prometheus (observability.managedPrometheus)",
                                         stack.observability.managed_prometheus),
                                        ("alert policies (observability.alerts)", stack.observability.alerts)) if on]
    if monitoring:
        out[MONITORING_API] = " and ".join(monitoring)
    return out


def api_and_role_notes(stack: StackConfig) -> list[str]:
    """The APIs the stack's features need and the roles it cannot grant (actionsRequired)."""
    out = []
    if apis := required_apis(stack):
        out.append(f"enable {', '.join(apis)} in project {stack.project} unless enabled (gcloud services enable "
                   f"{' '.join(apis)}); needed by " + "; ".join(f"{api}: {why}" for api, why in apis.items()))
    if not stack.cluster.create and any(pool.dynamic_slicing for pool in stack.tpu_pools):
        out.append(f"enable GKE's slice controller on the adopted cluster {stack.cluster.name} unless enabled (gcloud "
                   f"container clusters update {stack.cluster.name} --location={stack.cluster.location} "
                   "--enable-slice-controller); needed by tpuPools[].dynamicSlicing: this stack sets the add-on only "
                   "on a cluster it creates")
    sa = stack.cluster.node_service_account
    if image_streaming_pools(stack) and sa.email and not sa.email.endswith("-compute@developer.gserviceaccount.com"):
        out.append(f"grant {SERVICE_USAGE_CONSUMER} on project {stack.project} to serviceAccount:{sa.email} (image "
                   "streaming: the nodes call the Container File System API as their service account): the node "
                   "service account is not managed by this stack")
    return out


# the provider's defaults (90 min), never less: a shorter one makes Pulumi give up while GKE carries on
CLUSTER_TIMEOUTS = {op: f"{PROVIDER_DEFAULT_TIMEOUT_MINUTES[GKE_CLUSTER]}m" for op in ("create", "update", "delete")}
# the transient default pool's nodeConfig: GKE may report it differently once the pool is removed
CLUSTER_IGNORE_CHANGES = ("nodeConfig",)


def cluster_ignore_changes(stack: StackConfig) -> tuple[str, ...]:
    """The cluster's ignoreChanges. With `cluster.dns: auto` the DNS is decided once, when the cluster is created:
    a later pool edit that flips `auto` (the first or last multi-host slice) must not send a dnsConfig update
    (removing the last multi-host slice would change the Cloud DNS scope, which GKE refuses: apply_rules
    `gke-dns-scope`). An explicit `cluster.dns` is sent as written: kube-dns -> Cloud DNS updates in place, a
    change of an existing Cloud DNS scope needs a new cluster, and `pathways-gke diff` says so."""
    return CLUSTER_IGNORE_CHANGES + (("dnsConfig",) if stack.cluster.dns == "auto" else ())

# Metric packages the TPU and JobSet dashboards read. SYSTEM_COMPONENTS carries GKE's system metrics, which
# include the TPU node/container metrics (duty cycle, TensorCore utilization, HBM); the kube state metrics
# packages need system metrics and managed collection on; JOBSET needs GKE >= 1.32.1-gke.1357001
# (https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics).
MONITORING_COMPONENTS = ("SYSTEM_COMPONENTS", "STORAGE", "POD", "DEPLOYMENT", "STATEFULSET", "DAEMONSET", "HPA",
                         "JOBSET")
LOGGING_COMPONENTS = ("SYSTEM_COMPONENTS", "WORKLOADS")  # the workload log links query container logs


def has_multi_host_slices(stack: StackConfig) -> bool:
    return any(pool.shape.multi_host for pool in stack.tpu_pools)


def cluster_dns(stack: StackConfig) -> str:
    """The DNS provider the cluster gets: `auto` resolves to Cloud DNS when a multi-host slice exists.

    Every host of a multi-host slice (and the Pathways head) resolves its peers' JobSet hostnames at start
    and after each restart; kube-dns did not keep up at that rate (XPK switches such clusters to CoreDNS,
    AI-Hypercomputer/xpk#500, #530). Cloud DNS answers on each node (no in-cluster DNS server to saturate)
    and serves headless Services, which the JobSet's hostnames are.
    """
    dns = stack.cluster.dns
    if dns == "auto":
        return "cloud-dns" if has_multi_host_slices(stack) else "gke-default"
    return dns


def dns_config(stack: StackConfig) -> Optional[dict[str, Any]]:
    """The cluster's `dns_config` (Cloud DNS), or None."""
    if cluster_dns(stack) != "cloud-dns":
        return None
    # cluster scope: records visible inside this cluster only; GKE cannot change the scope later
    # (https://cloud.google.com/kubernetes-engine/docs/how-to/cloud-dns)
    return {"cluster_dns": "CLOUD_DNS", "cluster_dns_scope": "CLUSTER_SCOPE"}


def dns_cache_config(stack: StackConfig) -> Optional[dict[str, Any]]:
    """`addons_config.dns_cache_config` (NodeLocal DNSCache), or None (GKE's default for the version)."""
    return {"enabled": True} if cluster_dns(stack) == "nodelocal-dnscache" else None


def monitoring_args(stack: StackConfig) -> dict[str, Any]:
    """Managed Prometheus, the metric packages of the TPU/JobSet dashboards, and workload logs."""
    if not stack.observability.managed_prometheus:
        return {}
    return {
        "monitoring_config": {"enable_components": list(MONITORING_COMPONENTS),
                              "managed_prometheus": {"enabled": True}},
        "logging_config": {"enable_components": list(LOGGING_COMPONENTS)},
    }


def maintenance_policy(stack: StackConfig) -> Optional[dict[str, Any]]:
    """cluster.maintenance as pulumi_gcp's maintenance_policy (exclusions without endTime run until end of support)."""
    maintenance = stack.cluster.maintenance
    if maintenance is None:
        return None
    out: dict[str, Any] = {}
    if maintenance.window is not None:
        out["recurring_window"] = {"start_time": maintenance.window.start_time,
                                   "end_time": maintenance.window.end_time,
                                   "recurrence": maintenance.window.recurrence}
    if maintenance.exclusions:
        exclusions = []
        for exclusion in maintenance.exclusions:
            item: dict[str, Any] = {"exclusion_name": exclusion.name, "start_time": exclusion.start_time,
                                    "exclusion_options": {"scope": exclusion.scope}}
            if exclusion.end_time is None:
                # exactly one of end_time and end_time_behavior (pulumi_gcp ClusterMaintenancePolicy docs)
                item["exclusion_options"]["end_time_behavior"] = "UNTIL_END_OF_SUPPORT"
            else:
                item["end_time"] = exclusion.end_time
            exclusions.append(item)
        out["maintenance_exclusions"] = exclusions
    return out or None


def ip_allocation_policy(stack: StackConfig) -> dict[str, Any]:
    """VPC-native IPv4; the user-managed secondary ranges when named (a Shared VPC subnetwork has no others)."""
    cluster = stack.cluster
    policy: dict[str, Any] = {"stack_type": "IPV4"}
    if cluster.pods_range_name:
        policy["cluster_secondary_range_name"] = cluster.pods_range_name
        policy["services_secondary_range_name"] = cluster.services_range_name
    return policy


def shared_vpc_notes(stack: StackConfig) -> list[str]:
    """The host-project grants a cluster on a Shared VPC needs, which the stack (in the service project) does not
    make (https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-shared-vpc#enabling_and_granting_roles)."""
    cluster = stack.cluster
    host = cluster.host_project(stack.project)
    if not cluster.create or host == stack.project:
        return []
    number = cluster.project_number or "PROJECT_NUMBER"
    subnet = nat_subnetwork(stack)
    gke_agent = f"serviceAccount:service-{number}@container-engine-robot.iam.gserviceaccount.com"
    cloud_services = f"serviceAccount:{number}@cloudservices.gserviceaccount.com"
    return [
        f"grant roles/container.hostServiceAgentUser on project {host} to {gke_agent} (the GKE service agent of "
        f"{stack.project} manages the cluster's network resources in the Shared VPC host)",
        f"grant roles/compute.networkUser on subnetwork {subnet} to {gke_agent} and to {cloud_services} (GKE and "
        "the managed instance groups of the node pools use the host's subnetwork)",
        f"Shared VPC host {host}: attach service project {stack.project}, and let GKE manage firewall rules there "
        f"(roles/compute.securityAdmin on project {host} to {gke_agent}) or create them yourself",
    ]


def autoprovisioning_locations(stack: StackConfig) -> list[str]:
    """Zones node auto-provisioning may use: as given, else the TPU pool groups' zones."""
    nap = stack.cluster.autoprovisioning
    if nap is not None and nap.locations:
        return list(nap.locations)
    return sorted({pool.zone for pool in stack.tpu_pools})


def cluster_autoscaling(stack: StackConfig, service_account: Any) -> Optional[dict[str, Any]]:
    """clusterAutoscaling for node auto-provisioning (config/autoprovisioning.py says what GKE requires): cpu and
    memory limits always, a chip limit per TPU accelerator, provisioned nodes as the stack's node service account
    with the cloud-platform scope (TFB defaults serviceAccount to "default", the Compute Engine account), in the TPU
    zones. Edits update in place (TFB google_container_cluster: no ForceNew under cluster_autoscaling; GKE API
    ClusterUpdate.desiredClusterAutoscaling)."""
    nap = stack.cluster.autoprovisioning
    if nap is None or not nap.enabled:
        return None
    return {
        "enabled": True,
        "resource_limits": nap.resource_limits(),
        "auto_provisioning_defaults": {"service_account": service_account, "oauth_scopes": [CLOUD_PLATFORM_SCOPE]},
        "auto_provisioning_locations": autoprovisioning_locations(stack),
    }


def cluster_args(stack: StackConfig, service_account: Any = None) -> dict[str, Any]:
    """`service_account`: the node SA email; GKE's transient default pool runs as it (an organisation that
    disabled the Compute Engine default account cannot create the cluster otherwise; Cluster Toolkit
    modules/scheduler/gke-cluster/main.tf does the same)."""
    cluster = stack.cluster
    args: dict[str, Any] = {
        "name": cluster.name,
        "location": cluster.location,
        "project": stack.project,
        # node pools are separate resources; the default pool is removed right after creation
        "remove_default_node_pool": True,
        "initial_node_count": 1,
        "release_channel": {"channel": cluster.release_channel},
        "workload_identity_config": {"workload_pool": f"{stack.project}.svc.id.goog"},
        "addons_config": {
            "gcs_fuse_csi_driver_config": {"enabled": True},
            "gce_persistent_disk_csi_driver_config": {"enabled": True},
        },
        "datapath_provider": "ADVANCED_DATAPATH",  # Dataplane V2 (needed by the v6e network profile)
        "networking_mode": "VPC_NATIVE",
        "ip_allocation_policy": ip_allocation_policy(stack),
        "deletion_protection": cluster.deletion_protection,
        "resource_labels": dict(sorted({**cluster.labels, **MANAGED_BY_GCE_LABELS}.items())),
    }
    if service_account is not None:
        args["node_config"] = {"service_account": service_account, "oauth_scopes": [CLOUD_PLATFORM_SCOPE]}
    if (autoscaling := cluster_autoscaling(stack, service_account)) is not None:
        args["cluster_autoscaling"] = autoscaling
    policy = maintenance_policy(stack)
    if policy is not None:
        args["maintenance_policy"] = policy
    if (dns := dns_config(stack)) is not None:
        args["dns_config"] = dns
    if (cache := dns_cache_config(stack)) is not None:
        args["addons_config"]["dns_cache_config"] = cache
    if cluster.multi_tier_checkpointing is not None:  # GKE's MTC add-on (GCS FUSE, above, is always on)
        args["addons_config"]["high_scale_checkpointing_config"] = {"enabled": True}
    if any(pool.dynamic_slicing for pool in stack.tpu_pools):
        # GKE's slice controller (`--enable-slice-controller`; Cluster Toolkit gke-cluster main.tf
        # `addons_config.slice_controller_config`, pulumi-gcp 10.2.0 ClusterAddonsConfigSliceControllerConfigArgs)
        args["addons_config"]["slice_controller_config"] = {"enabled": True}
    if cluster.additional_networks:
        # extra node NICs need multi-networking, which needs Dataplane V2 (datapath_provider above)
        args["enable_multi_networking"] = True
    args.update(monitoring_args(stack))
    if cluster.version:
        args["min_master_version"] = cluster.version
    if cluster.network:
        args["network"] = cluster.network
    if cluster.subnetwork:
        args["subnetwork"] = cluster.subnetwork
    if cluster.private_nodes:
        args["private_cluster_config"] = {"enable_private_nodes": True}
        if cluster.master_ipv4_cidr_block:
            args["private_cluster_config"]["master_ipv4_cidr_block"] = cluster.master_ipv4_cidr_block
    if cluster.master_authorized_networks:
        args["master_authorized_networks_config"] = {"cidr_blocks": [
            {"cidr_block": n.cidr_block, **({"display_name": n.display_name} if n.display_name else {})}
            for n in cluster.master_authorized_networks]}
    return args


# The ports on the nodes the API server calls for each installed controller: the admission webhooks of JobSet,
# Kueue and LWS (their config/components/webhook/service.yaml: targetPort 9443) and Kueue's visibility APIService
# (kubernetes-sigs/kueue config/components/visibility/service.yaml: targetPort 8082; unreachable, it leaves the
# APIService unavailable and namespace deletion hanging). GKE's own firewall rule for a private control plane
# opens only 443 and 10250 (https://cloud.google.com/kubernetes-engine/docs/how-to/private-clusters#add_firewall_rules).
CONTROLLER_PORTS: dict[str, tuple[str, ...]] = {"jobset": ("9443",), "kueue": ("9443", "8082"), "lws": ("9443",)}


def webhook_ports(stack: StackConfig) -> list[str]:
    """The ports of the controllers this stack installs (JobSet always; Kueue and LWS when used)."""
    installed = ["jobset"] + (["kueue"] if stack.kueue.enabled else []) + (["lws"] if stack.needs_lws else [])
    return sorted({port for addon in installed for port in CONTROLLER_PORTS[addon]}, key=int)


def node_service_account_email(stack: StackConfig) -> Optional[str]:
    """The nodes' service account when known from config (created: its id is ours; or given by email)."""
    sa = stack.cluster.node_service_account
    if sa.email:
        return sa.email
    if sa.create:
        return f"{node_service_account_id(stack.cluster.name, stack.cluster.location)}@{stack.project}.iam.gserviceaccount.com"
    return None  # the Compute Engine default: its email needs the project number


def webhook_firewall_args(stack: StackConfig) -> Optional[dict[str, Any]]:
    """Ingress from a private control plane to the webhook port, or None when not needed/knowable.

    It lives where the network lives (a Shared VPC's host project) and targets this cluster's nodes by their
    service account (every instance of the network when the nodes use the Compute Engine default account).
    """
    cluster = stack.cluster
    if not (cluster.private_nodes and cluster.master_ipv4_cidr_block):
        return None
    args: dict[str, Any] = {
        "name": webhook_firewall_name(cluster.name, cluster.location),
        "project": cluster.host_project(stack.project),
        "network": cluster.network or "default",
        "direction": "INGRESS",
        "source_ranges": [cluster.master_ipv4_cidr_block],
        "allows": [{"protocol": "tcp", "ports": webhook_ports(stack)}],
        "description": f"GKE control plane of {cluster.name} ({cluster.location}) -> controller webhooks and "
                       "Kueue's visibility API (pathways-gke)",
    }
    email = node_service_account_email(stack)
    if email:
        args["target_service_accounts"] = [email]
    return args


def router_args(stack: StackConfig) -> Optional[dict[str, Any]]:
    """A Cloud Router for the NAT of a private cluster's region, unless NAT is off or an existing router is named.

    Private nodes have no external IP and registry.k8s.io (JobSet, Kueue, LWS images) is not a Private Google
    Access endpoint (https://cloud.google.com/vpc/docs/private-google-access): without NAT the controllers never
    start. Router and NAT live in the network's project (the Shared VPC host).
    """
    cluster = stack.cluster
    if not cluster.nat_on(stack.project) or cluster.nat.router:
        return None
    return {
        "name": router_name(cluster.name, cluster.location),
        "project": cluster.host_project(stack.project),
        "region": cluster.region,
        "network": cluster.network or "default",
        "description": f"Cloud NAT for the private nodes of {cluster.name} (pathways-gke)",
    }


def nat_subnetwork(stack: StackConfig) -> str:
    """Self link of the nodes' subnetwork: cluster.subnetwork, else the one GKE picks in an auto-mode network
    (named like the network, in the cluster's region)."""
    cluster = stack.cluster
    given = cluster.subnetwork or cluster.network_name
    if "/subnetworks/" in given:
        return given
    return f"projects/{cluster.host_project(stack.project)}/regions/{cluster.region}/subnetworks/{given}"


def nat_args(stack: StackConfig) -> Optional[dict[str, Any]]:
    """The Cloud NAT for the nodes' subnetwork only (all its ranges: nodes, pods, services), or None.

    Scoped with LIST_OF_SUBNETWORKS: an ALL_SUBNETWORKS_* NAT must be the only NAT of its network and region
    (a second private cluster, or an existing NAT, makes its creation fail) and would translate other teams'
    subnets (https://cloud.google.com/nat/docs/set-up-manage-network-address-translation#specify_subnet_ranges_for_nat;
    terraform-provider-google resource_compute_router_nat.go: source_subnetwork_ip_ranges_to_nat)."""
    cluster = stack.cluster
    if not cluster.nat_on(stack.project):
        return None
    return {
        "name": nat_name(cluster.name, cluster.location),
        "project": cluster.host_project(stack.project),
        "region": cluster.region,
        "router": cluster.nat.router or router_name(cluster.name, cluster.location),
        "nat_ip_allocate_option": "AUTO_ONLY",
        "source_subnetwork_ip_ranges_to_nat": "LIST_OF_SUBNETWORKS",
        "subnetworks": [{"name": nat_subnetwork(stack), "source_ip_ranges_to_nats": ["ALL_IP_RANGES"]}],
    }


def egress_notes(stack: StackConfig) -> list[str]:
    """What a private cluster without our NAT needs from the user (shown in the plan, warned at `pulumi up`)."""
    cluster = stack.cluster
    if not cluster.private_nodes or cluster.nat_on(stack.project):
        return []
    manifests = [f"{a}.manifest" for a in ("jobset", "kueue") if a == "jobset" or stack.kueue.enabled]
    host = cluster.host_project(stack.project)
    why = ("cluster.nat.enabled is false" if cluster.nat.enabled is False else
           f"the network is in project {host} (Shared VPC), so no NAT is created there by default")
    return [f"{why}: private nodes pull the JobSet/Kueue/LWS images from registry.k8s.io "
            f"only through the network's own Cloud NAT in {cluster.region}. Without one, mirror the images to "
            f"Artifact Registry (reachable through Private Google Access) and set {' / '.join(manifests)} to a "
            "local manifests.yaml that names the mirrored images."
            + ("" if cluster.nat.enabled is False else f" Or set cluster.nat.enabled: true to create a NAT for "
               f"subnetwork {nat_subnetwork(stack)} in project {host} (needs compute.routers.* there).")]


def cluster_identifier(stack: StackConfig, ca_certificate: str) -> str:
    """The Kubernetes provider's `clusterIdentifier`: the cluster's name and a digest of its CA certificate.

    pulumi-kubernetes (provider.go DiffConfig) replaces the provider, and with it every object it manages, exactly
    when `clusterIdentifier` changes, and never otherwise while one is set. The name alone stays the same when the
    cluster is re-created under it (a new master CIDR, network or location replaces the cluster), so the objects
    would stay "same" in the state and absent from the new cluster. The CA certificate is per cluster instance:
    GKE issues a new root CA to every new control plane, and an update or upgrade keeps it; while the cluster is
    being replaced the value is unknown, which DiffConfig counts as a change. The endpoint is not an identity: a
    private endpoint is an address of the master CIDR that a successor can get again. A credential or IP
    rotation (`gcloud container clusters update --start-credential-rotation`) issues a new CA too: the next
    refreshed `pulumi up` then re-creates every Kubernetes object (docs/edits.md). The CA is public; the digest only
    keeps the identifier short. Pure: the component applies it to the cluster's output."""
    digest = hashlib.sha256(ca_certificate.encode()).hexdigest()[:16]
    return f"{stack.project}/{stack.cluster.location}/{stack.cluster.name}/ca-{digest}"
