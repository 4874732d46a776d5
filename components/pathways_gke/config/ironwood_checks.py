"""The checks across sections of the Ironwood keys (`tpuPools[].dynamicSlicing`, `tpuPools[].numaAware`,
`workloads[].dynamicSlice`, `workloads[].parallelContainers`, `cluster.additionalNetworks`): every combination the
sources exclude, refused naming the key and the reason (components/pathways_gke/ironwood.py cites them)."""

from __future__ import annotations

from ..catalog import chips_of
from ..errors import Problem
from ..gke_rules import below_floor
from ..ironwood import (
    ACCELERATOR_TOPOLOGY_MODE, DYNAMIC_SLICING_CHANNEL, MULTISLICE_MIN_JOBSET, DYNAMIC_SLICING_GENERATION, PARALLEL_CONTAINER_MACHINES,
    SUB_BLOCK_TOPOLOGY, SUB_BLOCK_VMS, dynamic_slice_floor, is_sub_slice, sub_blocks_of,
)
from ..releases import version_key
from .model import StackConfig


def ironwood_problems(stack: StackConfig) -> list[Problem]:
    """The combinations the sources exclude, each naming the key and the reason."""
    return [*_pool_problems(stack), *_workload_problems(stack), *_network_problems(stack)]


def _pool_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    for i, pool in enumerate(stack.tpu_pools):
        at = f"tpuPools[{i}]"
        if pool.numa_aware and pool.type != DYNAMIC_SLICING_GENERATION:
            out.append(Problem(f"{at}.numaAware", f"applies to tpu7x hosts (two NUMA nodes per VM); {pool.type} "
                               "is not one", True))
        if not pool.dynamic_slicing:
            continue
        key = f"{at}.dynamicSlicing"
        if pool.type != DYNAMIC_SLICING_GENERATION:
            out.append(Problem(key, f"is an Ironwood (tpu7x) feature; this group is {pool.type}", True))
            continue
        if pool.topology != SUB_BLOCK_TOPOLOGY:
            out.append(Problem(key, f"provisions capacity as {SUB_BLOCK_TOPOLOGY} sub-blocks (16 VMs, one node pool "
                               f"each): set topology {SUB_BLOCK_TOPOLOGY} and slices to the number of sub-blocks, "
                               f"not {pool.topology}", True))
        if pool.capacity != "reservation":
            out.append(Problem(key, f"needs capacity 'reservation', not '{pool.capacity}': the workload policy's "
                               f"acceleratorTopologyMode {ACCELERATOR_TOPOLOGY_MODE} is only supported on a specific "
                               "reservation (not with spot, on-demand, flex-start or queued provisioning; Cluster "
                               "Toolkit gke-node-pool preconditions, GKE dynamic slicing requirements)", True))
        res = pool.reservation_spec
        if res is not None and res.sub_block and pool.slices > 1:
            out.append(Problem(f"{at}.reservation.subBlock", f"is one sub-block ({SUB_BLOCK_VMS} VMs), which holds "
                               f"one {SUB_BLOCK_TOPOLOGY} node pool; this group has {pool.slices}: name the "
                               "reservation or its block instead", res.sub_block))
        if pool.autoscaling:
            out.append(Problem(f"{at}.autoscaling", "cannot be used with dynamicSlicing: each node pool is one "
                               "reserved sub-block of fixed size", True))
        if not stack.kueue.enabled:
            out.append(Problem(key, "needs kueue.enabled: true (workloads reach GKE's slice controller through "
                               "Kueue's admission check accelerator.gke.io/slice)", True))
        if stack.cluster.create and stack.cluster.release_channel != DYNAMIC_SLICING_CHANNEL:
            out.append(Problem("cluster.releaseChannel", f"must be {DYNAMIC_SLICING_CHANNEL} for {key}: GKE "
                               "supports dynamic slicing on Standard clusters in the Rapid channel",
                               stack.cluster.release_channel))
        version = stack.cluster.version
        floor, what = dynamic_slice_floor(SUB_BLOCK_TOPOLOGY)
        if version is not None and below_floor(version, floor):
            out.append(Problem("cluster.version", f"is below GKE {floor}, the first version that supports {what} "
                               f"({key}); pin {floor} or later, or leave it unset", version))
    return out


def _workload_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    pools = {p.name: p for p in stack.tpu_pools}
    for i, w in enumerate(stack.workloads):
        at = f"workloads[{i}]"
        pool = pools.get(w.tpu_pool) if w.tpu_pool else None
        dyn = w.dynamic_slice
        for j, group in enumerate(w.tpu_pools or []):
            if group in pools and pools[group].dynamic_slicing:
                out.append(Problem(f"{at}.tpuPools[{j}]", f"names '{group}', a dynamicSlicing group: an ordered "
                                   "fallback's workers select a shape that any listed group's flavor may admit, but "
                                   "a dynamic slice is formed by GKE's slice controller on its own group's "
                                   "sub-blocks (slice annotations, no shape selector); name it alone with tpuPool "
                                   "and dynamicSlice", group))
        if pool is not None and pool.dynamic_slicing and dyn is None:
            out.append(Problem(f"{at}.dynamicSlice", f"is required on tpuPool '{pool.name}' (dynamicSlicing: "
                               "its node pools are sub-blocks, a slice is formed per workload): give {topology, "
                               "count}"))
        if dyn is None:
            continue
        if pool is None or not pool.dynamic_slicing:
            out.append(Problem(f"{at}.dynamicSlice", "needs a tpuPool with dynamicSlicing: true (a slice is "
                               "stitched from that group's reserved sub-blocks)", dyn.topology))
            continue
        if getattr(w, "mode", "default") in ("serving", "service"):
            out.append(Problem(f"{at}.dynamicSlice", "applies to JobSet workloads (the slice controller admits a "
                               "JobSet through Kueue); modes serving and service run on a LeaderWorkerSet",
                               dyn.topology))
        need = sub_blocks_of(dyn.topology) * dyn.count if not is_sub_slice(dyn.topology) else None
        if need is not None and need > pool.slices:
            out.append(Problem(f"{at}.dynamicSlice", f"needs {need} sub-blocks ({dyn.count} x {dyn.topology}); "
                               f"tpuPool '{pool.name}' has {pool.slices}", dyn.topology))
        if is_sub_slice(dyn.topology) and dyn.count > pool.slices * (chips_of(SUB_BLOCK_TOPOLOGY) // chips_of(dyn.topology)):
            out.append(Problem(f"{at}.dynamicSlice.count", f"asks for more {dyn.topology} sub-slices than "
                               f"tpuPool '{pool.name}'s {pool.slices} sub-block(s) hold", dyn.count))
        if dyn.count > 1 and version_key(stack.jobset.version) < version_key(MULTISLICE_MIN_JOBSET):
            out.append(Problem("jobset.version", f"is older than {MULTISLICE_MIN_JOBSET}, which GKE requires for "
                               f"multislice dynamic slices ({at}.dynamicSlice.count {dyn.count}); pin "
                               f"{MULTISLICE_MIN_JOBSET} or later", stack.jobset.version))
        floor, what = dynamic_slice_floor(dyn.topology)
        version = stack.cluster.version
        if version is not None and below_floor(version, floor):
            out.append(Problem("cluster.version", f"is below GKE {floor}, the first version that supports {what} "
                               f"({at}.dynamicSlice); pin {floor} or later, or leave it unset", version))
    for i, w in enumerate(stack.workloads):
        parallel = getattr(w, "parallel_containers", None)
        if parallel is None:
            continue
        pool = pools.get(w.first_pool) if w.first_pool else None  # an ordered fallback's groups share one shape
        if pool is not None and pool.topology is None:
            continue  # the pool's missing topology is reported at tpuPools[i].topology
        machine = pool.shape.machine_type if pool is not None else None
        if machine not in PARALLEL_CONTAINER_MACHINES:
            out.append(Problem(f"workloads[{i}].parallelContainers", "runs two containers of 2 chips on each "
                               f"{' / '.join(PARALLEL_CONTAINER_MACHINES)} VM (XPK's parallel containers); "
                               + (f"tpuPool '{pool.name}' is {machine}" if pool else "this workload has no tpuPool"),
                               parallel))
    return out


def _network_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    nets = stack.cluster.additional_networks
    if not nets:
        return out
    seen: set[str] = set()
    for i, net in enumerate(nets):
        if net.network in seen:
            out.append(Problem(f"cluster.additionalNetworks[{i}].network", "is listed twice; a node gets one NIC per "
                               "network", net.network))
        seen.add(net.network)
        if stack.cluster.network and net.network == stack.cluster.network:
            out.append(Problem(f"cluster.additionalNetworks[{i}].network", "is the cluster's own network (the "
                               "nodes' first NIC); an additional NIC needs another VPC", net.network))
    for i, pool in enumerate(stack.tpu_pools):
        if pool.network_profile_on:
            out.append(Problem(f"tpuPools[{i}].networkProfile", "cannot be on with cluster.additionalNetworks: the "
                               "accelerator network profile sets up the hosts' extra networks itself (GKE; Cluster "
                               "Toolkit refuses both); turn it off (networkProfile: false) or drop "
                               "additionalNetworks", True))
    if not stack.cluster.create:
        out.append(Problem("cluster.additionalNetworks", "needs multi-networking on the cluster, which pathways-gke "
                           "sets only on a cluster it creates; on an adopted cluster enable it yourself and list "
                           "the networks on the node pools", len(nets)))
    return out

