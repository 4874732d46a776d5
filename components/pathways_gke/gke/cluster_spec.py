"""The GKE cluster's pulumi_gcp arguments and the node service account's roles, as plain data."""

from __future__ import annotations

from typing import Any, Optional

from ..config.stack import StackConfig
from ..gke_rules import PROVIDER_DEFAULT_TIMEOUT_MINUTES
from ..naming import MANAGED_BY_GCE_LABEL
from .nodepools import CLOUD_PLATFORM_SCOPE

# Minimal roles for GKE nodes (logging, monitoring, pulling images; CTK's node SA example).
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/artifactregistry.reader",
    "roles/logging.logWriter",
    "roles/monitoring.metricWriter",
    "roles/monitoring.viewer",
    "roles/stackdriver.resourceMetadata.writer",
    "roles/storage.objectViewer",
)
CLUSTER_TYPE = "gcp:container/cluster:Cluster"
# the provider's defaults (90 min), never less: a shorter one makes Pulumi give up while GKE carries on
CLUSTER_TIMEOUTS = {op: f"{PROVIDER_DEFAULT_TIMEOUT_MINUTES[CLUSTER_TYPE]}m" for op in ("create", "update", "delete")}
# the transient default pool's nodeConfig: GKE may report it differently once the pool is removed
CLUSTER_IGNORE_CHANGES = ("nodeConfig",)


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
        "ip_allocation_policy": {"stack_type": "IPV4"},
        "deletion_protection": cluster.deletion_protection,
        "resource_labels": dict(sorted({**cluster.labels, MANAGED_BY_GCE_LABEL: "pathways-gke"}.items())),
    }
    if service_account is not None:
        args["node_config"] = {"service_account": service_account, "oauth_scopes": [CLOUD_PLATFORM_SCOPE]}
    policy = maintenance_policy(stack)
    if policy is not None:
        args["maintenance_policy"] = policy
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
    return args


# JobSet and Kueue serve their admission webhooks on the nodes' port 9443; GKE's own firewall rule for a
# private control plane opens only 443 and 10250 (JOBSET_INSTALL.md §4.2).
WEBHOOK_PORTS = ("9443",)


def webhook_firewall_args(stack: StackConfig) -> Optional[dict[str, Any]]:
    """Ingress from a private control plane to the webhook port, or None when not needed/knowable."""
    cluster = stack.cluster
    if not (cluster.private_nodes and cluster.master_ipv4_cidr_block):
        return None
    return {
        "name": f"{cluster.name}-webhooks",
        "project": stack.project,
        "network": cluster.network or "default",
        "direction": "INGRESS",
        "source_ranges": [cluster.master_ipv4_cidr_block],
        "allows": [{"protocol": "tcp", "ports": list(WEBHOOK_PORTS)}],
        "description": f"GKE control plane of {cluster.name} -> JobSet/Kueue admission webhooks (pathways-gke)",
    }


def cluster_identifier(stack: StackConfig) -> str:
    """Stable identity for the Kubernetes provider: only a different cluster replaces it."""
    return f"{stack.project}/{stack.cluster.location}/{stack.cluster.name}"
