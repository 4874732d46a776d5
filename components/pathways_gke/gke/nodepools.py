"""Node-pool specs as plain data: the pulumi_gcp NodePool arguments for the head pool and each slice.

Sources: https://cloud.google.com/kubernetes-engine/docs/how-to/tpus and the pulumi_gcp.container.NodePool
arguments. Values that come from other
resources (cluster name, service-account email, workload-policy name) are passed in by the
caller and placed as-is, so this module needs no Pulumi import.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Optional

from ..capacity import NO_RESERVATION, PROVISIONED_ON_DEMAND
from ..catalog import SliceShape
from ..config.cluster import CpuPoolConfig
from ..config.model import ClusterFacts
from ..config.stack import StackConfig
from ..config.tpu import TpuPoolConfig, parse_duration_seconds
from ..ironwood import ACCELERATOR_TOPOLOGY_MODE, NUMA_KUBELET
from ..gke_rules import PROVIDER_DEFAULT_TIMEOUT_MINUTES, SERVER_FILLED_TPU_FIELDS, SERVER_FILLED_WORKLOAD_POLICY_FIELDS
from ..naming import (
    DRA_NETWORK_LABEL, GROUP_GCE_LABEL, HEAD_ROLE, QUEUED_LABEL, ROLE_GCE_LABEL, ROLE_LABEL, TPU_GROUP_LABEL, TPU_TAINT,
    slice_group_taint, tpu_node_pool_name,
)
from ..tokens import NODE_POOL

CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform"
RESERVATION_KEY = "compute.googleapis.com/reservation-name"
# XPK and TPROV: fewer pods per node on multi-host slices keeps large clusters inside their pod IP space.
MULTI_HOST_MAX_PODS = 15
# Slices are atomic: never surge an extra TPU VM, replace one node at a time.
SLICE_UPGRADE = {"strategy": "SURGE", "max_surge": 0, "max_unavailable": 1}
CPU_UPGRADE = {"strategy": "SURGE", "max_surge": 1, "max_unavailable": 0}


def tpu_pool_timeouts(shape: SliceShape) -> dict[str, str]:
    """Never below the provider's 2 h default; 30 more minutes per 64 VMs of a slice (large slices are slow)."""
    minutes = PROVIDER_DEFAULT_TIMEOUT_MINUTES[NODE_POOL] + 30 * ((shape.vms_per_slice - 1) // 64)
    return {"create": f"{minutes}m", "update": f"{minutes}m", "delete": f"{minutes}m"}


@dataclass(frozen=True)
class NodePoolSpec:
    """Arguments and resource options for one gcp.container.NodePool."""

    resource_name: str
    args: dict[str, Any]
    ignore_changes: tuple[str, ...] = ()
    replace_on_changes: tuple[str, ...] = ()
    delete_before_replace: bool = False
    protect: bool = False
    custom_timeouts: Optional[dict[str, str]] = None


IMAGE_CACHE_MODE = "CONTAINER_IMAGE_CACHE"
MULTI_HOST_REPLACE_ON_CHANGES = ("placementPolicy", "nodeCount")


def cold_start_config(image_streaming: bool, image_cache_disk: Optional[str]) -> dict[str, Any]:
    """`gcfs_config` and `secondary_boot_disks` of a pool.

    Image streaming lets containers start before their image is fully pulled (Artifact Registry images);
    a secondary boot disk in CONTAINER_IMAGE_CACHE mode comes with the images already on it, so a node
    (re)created for a slice restart pulls nothing. The cache needs image streaming on (GKE secondary boot
    disk docs). `secondary_boot_disks` is force-new in the provider (TFB node_config.go): changing the disk
    image replaces the pool, which `delete_before_replace` makes possible under its fixed name.
    """
    out: dict[str, Any] = {}
    if image_streaming:
        out["gcfs_config"] = {"enabled": True}
    if image_cache_disk:
        out["secondary_boot_disks"] = [{"disk_image": image_cache_disk, "mode": IMAGE_CACHE_MODE}]
    return out


def _common_node_config(service_account: Any, labels: dict[str, str], resource_labels: dict[str, str]) -> dict:
    return {
        "service_account": service_account,
        "oauth_scopes": [CLOUD_PLATFORM_SCOPE],
        "workload_metadata_config": {"mode": "GKE_METADATA"},
        "metadata": {"disable-legacy-endpoints": "true"},
        "gvnic": {"enabled": True},
        "image_type": "COS_CONTAINERD",
        "shielded_instance_config": {"enable_secure_boot": True, "enable_integrity_monitoring": True},
        "labels": dict(sorted(labels.items())),
        "resource_labels": dict(sorted(resource_labels.items())),
    }


def head_pool_zone(stack: StackConfig) -> str:
    """The CPU pool sits beside the slices: its own zone, else the first TPU zone, else the cluster's zone."""
    if stack.cpu_pool.zone:
        return stack.cpu_pool.zone
    if stack.tpu_pools:
        return stack.tpu_pools[0].zone
    return stack.cluster.location


def cpu_pool_spec(stack: StackConfig, *, component: str, cluster: Any, service_account: Any) -> NodePoolSpec:
    cpu: CpuPoolConfig = stack.cpu_pool
    node_config = _common_node_config(
        service_account,
        {**cpu.labels, ROLE_LABEL: HEAD_ROLE},
        {**stack.cluster.labels, ROLE_GCE_LABEL: HEAD_ROLE},
    )
    node_config.update(machine_type=cpu.machine_type, disk_size_gb=cpu.disk_size_gb, disk_type=cpu.boot_disk_type)
    node_config.update(cold_start_config(cpu.image_streaming, cpu.image_cache_disk))
    if cpu.spot:
        node_config["spot"] = True
    args = {
        "name": cpu.name,
        "cluster": cluster,
        "location": stack.cluster.location,
        "project": stack.project,
        "node_locations": [head_pool_zone(stack)],
        "initial_node_count": max(cpu.min_nodes, 1),
        "autoscaling": {
            "min_node_count": cpu.min_nodes,
            "max_node_count": cpu.max_nodes,
            "location_policy": "BALANCED",
        },
        "management": {"auto_repair": True, "auto_upgrade": True},
        "upgrade_settings": dict(CPU_UPGRADE),
        "node_config": node_config,
    }
    return NodePoolSpec(
        resource_name=f"{component}-cpu",
        args=args,
        # the autoscaler owns the size; initialNodeCount only matters at creation
        ignore_changes=("nodeCount", "initialNodeCount"),
        delete_before_replace=True,
        protect=stack.cluster.protect,
    )


def reservation_affinity(project: str, pool: TpuPoolConfig, index: int = 0) -> Optional[dict[str, Any]]:
    """`project`: the cluster's, where the reservation lives unless it names its own; slice `index` consumes its own
    entry of `reservations` (the GKE/TFB form of a block or sub-block:
    projects/P/reservations/NAME/reservationBlocks/B/reservationSubBlocks/S)."""
    if pool.capacity == "reservation":
        res = pool.reservation_for(index)
        assert res is not None
        path = f"projects/{res.project or project}/reservations/{res.name}"
        if res.block:
            path += f"/reservationBlocks/{res.block}"
        if res.sub_block:
            path += f"/reservationSubBlocks/{res.sub_block}"
        return {"consume_reservation_type": "SPECIFIC_RESERVATION", "key": RESERVATION_KEY, "values": [path]}
    if pool.capacity in NO_RESERVATION:
        return {"consume_reservation_type": "NO_RESERVATION"}
    return None


def network_profile_enabled(pool: TpuPoolConfig) -> bool:
    """v6e gets the accelerator network profile by default (as XPK does); tpu7x on request."""
    return pool.network_profile_on


def tpu_pool_specs(
    cluster_facts: ClusterFacts, pool: TpuPoolConfig, *, component: str, cluster: Any, service_account: Any,
    policy_name: Any = None,
) -> list[NodePoolSpec]:
    """One NodePool per slice, named <cluster>-<group>-<i> (the JobSet maps one slice to one pool)."""
    shape = pool.shape
    return [
        _tpu_pool_spec(cluster_facts, pool, shape, index, component=component, cluster=cluster,
                       service_account=service_account, policy_name=policy_name)
        for index in range(pool.slices)
    ]


def _tpu_pool_spec(
    facts: ClusterFacts, pool: TpuPoolConfig, shape: SliceShape, index: int, *, component: str, cluster: Any,
    service_account: Any, policy_name: Any,
) -> NodePoolSpec:
    # the managed labels go last: they win over a user label (which validation refuses anyway)
    labels = {**pool.labels, ROLE_LABEL: "tpu", TPU_GROUP_LABEL: pool.name}
    if network_profile_enabled(pool):
        labels[DRA_NETWORK_LABEL] = "true"
    if pool.capacity == "queued":
        labels[QUEUED_LABEL] = "true"
    node_config = _common_node_config(
        service_account, labels,
        {**facts.labels, ROLE_GCE_LABEL: "tpu", GROUP_GCE_LABEL: pool.name},
    )
    node_config.update(
        machine_type=shape.machine_type,
        # on an adopted cluster our slices carry their group's taint: another queue's pods (XPK's) stay off them
        taints=[dict(TPU_TAINT)] + ([] if facts.created else [slice_group_taint(pool.name)]),
        host_maintenance_policy={"maintenance_interval": pool.host_maintenance_interval},
    )
    if pool.disk_size_gb is not None:
        node_config["disk_size_gb"] = pool.disk_size_gb
    if pool.disk_type is not None:
        node_config["disk_type"] = pool.disk_type
    node_config.update(cold_start_config(pool.image_streaming, pool.image_cache_disk))
    if pool.capacity == "spot":
        node_config["spot"] = True
    if pool.flex_start:
        # flex-start capacity, and queued provisioning: GKE's current recipe pairs --flex-start with
        # --enable-queued-provisioning (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest)
        node_config["flex_start"] = True
        if pool.max_run_duration:
            node_config["max_run_duration"] = f"{parse_duration_seconds(pool.max_run_duration)}s"
    affinity = reservation_affinity(facts.project, pool, index)
    if affinity is not None:
        node_config["reservation_affinity"] = affinity

    args: dict[str, Any] = {
        "name": tpu_node_pool_name(facts.name, pool.name, index),
        "cluster": cluster,
        "location": facts.location,
        "project": facts.project,
        "node_locations": [pool.zone],
        # flex-start and queued pools: auto-repair off, or GKE re-creates a node outside its provisioning request
        "management": {"auto_repair": not pool.flex_start, "auto_upgrade": pool.auto_upgrade},
        "node_config": node_config,
    }
    # force-new fields GKE fills in on TPU hosts: declared nowhere, reported back, else a replace per update
    ignore: list[str] = list(SERVER_FILLED_TPU_FIELDS)
    if pool.scaled:
        # flex-start / queued / opted-in autoscaling: GKE brings the whole slice up from 0 (per-zone
        # limits in one zone + location policy ANY: a balanced spread cannot assemble a slice).
        args["initial_node_count"] = 0
        args["autoscaling"] = {
            "min_node_count": 0,
            "max_node_count": shape.vms_per_slice,
            "location_policy": "ANY",
        }
        ignore += ["nodeCount", "initialNodeCount"]
    else:
        args["node_count"] = shape.vms_per_slice
    if pool.capacity not in PROVISIONED_ON_DEMAND:
        args["upgrade_settings"] = dict(SLICE_UPGRADE)
    if pool.capacity == "queued":
        args["queued_provisioning"] = {"enabled": True}
    if shape.multi_host:
        if shape.needs_workload_policy:
            # tpu7x: the HIGH_THROUGHPUT workload policy alone, in the documented form. A COMPACT (group)
            # placement is mutually exclusive with a workload policy ("Creation of a managed instance group
            # with tpu7x-standard-4t machine type with placement policy is not supported. Use workload policy
            # instead."); the policy replaces --tpu-topology (GKE Ironwood page:
            # https://cloud.google.com/kubernetes-engine/docs/concepts/tpus; AI-Hypercomputer/xpk PR #676
            # sends only --placement-policy=<name>). pulumi-gcp requires `type`: an empty string satisfies it
            # (vllm-project/ci-infra PR #547). GKE stores the pool with no type and the topology it derives
            # from the policy, so both are ignored. UNVERIFIED against a live API.
            args["placement_policy"] = {"type": "", "policy_name": policy_name}
            ignore += list(SERVER_FILLED_WORKLOAD_POLICY_FIELDS)
        else:
            args["placement_policy"] = {"type": "COMPACT", "tpu_topology": shape.topology}
        args["max_pods_per_node"] = pool.max_pods_per_node or MULTI_HOST_MAX_PODS
    elif pool.max_pods_per_node:
        args["max_pods_per_node"] = pool.max_pods_per_node
    if network_profile_enabled(pool):
        args["network_config"] = {"accelerator_network_profile": "auto"}
    if facts.additional_networks:
        # the second NIC: one per cluster.additionalNetworks entry (GKE multi-networking; force-new in TFB)
        args.setdefault("network_config", {})["additional_node_network_configs"] = [
            {"network": network, "subnetwork": subnetwork} for network, subnetwork in facts.additional_networks]
    if pool.numa_aware:
        node_config["kubelet_config"] = copy.deepcopy(NUMA_KUBELET)
    protect = facts.protect if pool.protect is None else pool.protect
    return NodePoolSpec(
        resource_name=f"{component}-{pool.name}-{index}",
        args=args,
        ignore_changes=tuple(ignore),
        # A multi-host slice's shape is its placement policy and its VM count. The bridge updates a changed
        # non-empty placementPolicy block in place (a ForceNew *block* replaces only when its count changes; its
        # tpu_topology / type are not ForceNew) and the node-pool update resizes nodeCount: GKE refuses to resize
        # a multi-host slice. Replacing on both makes the new shape a new pool (apply_rules `tpu-slice-shape`).
        replace_on_changes=MULTI_HOST_REPLACE_ON_CHANGES if shape.multi_host else (),
        # fixed GKE names: a replaced slice must be deleted before its successor can take the name
        delete_before_replace=True,
        protect=protect,
        custom_timeouts=tpu_pool_timeouts(shape),
    )


def workload_policy_args(cluster: ClusterFacts, pool: TpuPoolConfig, name: str) -> dict[str, Any]:
    """compute.ResourcePolicy arguments for a tpu7x multi-host group."""
    return {
        "name": name,
        "project": cluster.project,
        "region": cluster.region,
        "workload_policy": {"type": "HIGH_THROUGHPUT", "accelerator_topology": pool.shape.topology,
                            # dynamic slicing: the sub-blocks are provisioned, not joined; the slice controller
                            # stitches them per workload (XPK --super-slicing, Cluster Toolkit resource-policy)
                            **({"accelerator_topology_mode": ACCELERATOR_TOPOLOGY_MODE} if pool.dynamic_slicing
                               else {})},
    }
