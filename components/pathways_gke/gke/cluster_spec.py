"""The GKE cluster's pulumi_gcp arguments and the node service account's roles, as plain data."""

from __future__ import annotations

from typing import Any, Optional

from ..config.stack import StackConfig

# Minimal roles for GKE nodes (logging, monitoring, pulling images; CTK's node SA example).
NODE_SERVICE_ACCOUNT_ROLES = (
    "roles/artifactregistry.reader",
    "roles/logging.logWriter",
    "roles/monitoring.metricWriter",
    "roles/monitoring.viewer",
    "roles/stackdriver.resourceMetadata.writer",
    "roles/storage.objectViewer",
)
CLUSTER_TIMEOUTS = {"create": "45m", "update": "45m", "delete": "45m"}

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


def cluster_args(stack: StackConfig) -> dict[str, Any]:
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
        "resource_labels": dict(sorted({**cluster.labels, "managed-by": "pathways-gke"}.items())),
    }
    if (dns := dns_config(stack)) is not None:
        args["dns_config"] = dns
    if (cache := dns_cache_config(stack)) is not None:
        args["addons_config"]["dns_cache_config"] = cache
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
