"""Ironwood (tpu7x) production facts: dynamic slicing, the second NIC, NUMA-aware hosts, parallel containers.

Plain data with its sources; the config checks, the node-pool and Kueue builders and the workload renderers read
it, nothing here decides. Sources, as read on 2026-11-27:
- GKE "Schedule dynamic slices with Kueue and TAS"
  (https://docs.cloud.google.com/kubernetes-engine/docs/how-to/use-gke-dynamic-slicing): a Standard cluster in the
  Rapid channel, >= 1.35.2-gke.1842000 for dynamic super-slices (4x4x4 and larger), >= 1.36.0-gke.3712000 for
  dynamic sub-slices (smaller than 4x4x4); Ironwood only; Container-Optimized OS; capacity as sub-blocks (a
  sub-block is 16 TPU VMs, a 4x4x4 cube; one node pool per sub-block); the slice controller enabled on the cluster
  (`gcloud container clusters update --enable-slice-controller`).
- XPK 1.16.0 `--super-slicing` (xpk/core/nodepool.py, kueue_manager.py, cluster.py, scheduling.py,
  templates/kueue_super_slicing_topology.yaml.j2, kueue_config.yaml.j2): workload policy with
  `--accelerator-topology-mode=PROVISION_ONLY`, reservation capacity targeted at sub-blocks, the Kueue Topology
  (levels gce-topology-block, gke-tpu-partition-4x4x4-id, hostname), an AdmissionCheck with controller
  `accelerator.gke.io/slice`, the TPU ResourceFlavor with `topologyName` and only the accelerator label, worker pods
  annotated `cloud.google.com/gke-tpu-slice-topology: <topology>` without the topology node selector and without
  the one-slice-per-node-pool JobSet annotation; Kueue's controller patched to 3 replicas of 16 CPU / 64Gi and
  JobSet's to 4 CPU / 16Gi; at most 144 cubes.
- Cluster Toolkit (develop 1047080375): modules/scheduler/gke-cluster/main.tf `addons_config.slice_controller_config`
  (pulumi-gcp 10.2.0 `ClusterAddonsConfigSliceControllerConfigArgs(enabled)`), modules/compute/gke-node-pool/main.tf
  ("PROVISION_ONLY accelerator topology mode is only supported on GKE node pools configured with
  SPECIFIC_RESERVATION reservation affinity"; "enable_queued_provisioning … cannot be true if
  accelerator_topology_mode is set to PROVISION_ONLY"), modules/management/kubectl-apply (dynamic slicing requires
  Kueue and JobSet), pkg/orchestrator/gke/scheduling.go (tpu7x partition labels
  `cloud.google.com/gke-tpu-partition-<topology>-id`; Kueue `podset-slice-required-topology` + `podset-slice-size`).
"""

from __future__ import annotations

from .catalog import chips_of

# --- dynamic slicing ------------------------------------------------------------------------------------

SUB_BLOCK_TOPOLOGY = "4x4x4"  # the unit GKE provisions: one node pool per sub-block
SUB_BLOCK_VMS = 16  # 4x4x4 chips / 4 chips per tpu7x-standard-4t VM
SUB_SLICE_TOPOLOGIES = ("2x2x1", "2x2x2", "2x2x4", "2x4x4")  # Cluster Toolkit hardware.go `validateDimensions`
DYNAMIC_SLICING_GENERATION = "tpu7x"
DYNAMIC_SLICING_MACHINE = "tpu7x-standard-4t"
SUPER_SLICE_MIN_GKE = "1.35.2-gke.1842000"
SUB_SLICE_MIN_GKE = "1.36.0-gke.3712000"
DYNAMIC_SLICING_CHANNEL = "RAPID"
ACCELERATOR_TOPOLOGY_MODE = "PROVISION_ONLY"
# "If you plan to run multislice workloads, install JobSet v0.10.1 or later" (GKE "Use dynamic slicing with a custom
# scheduler" and the Kueue how-to, before you begin)
MULTISLICE_MIN_JOBSET = "v0.10.1"
# The Slice a workload gets is named after it: at most 49 characters, the controller appends "-<8-char cluster hash>"
# for its Compute Engine names (GKE Slice CRD reference); XPK keeps super-slicing workload names to 28 characters
# (commands/workload.py `_SUPER_SLICING_WORKLOAD_NAME_LIMIT`). JobSet workload names here are at most 22.

SLICE_CONTROLLER = "accelerator.gke.io/slice"  # the AdmissionCheck's controllerName
SLICE_TOPOLOGY_ANNOTATION = "cloud.google.com/gke-tpu-slice-topology"
PODSET_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"
PODSET_SLICE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-slice-required-topology"
PODSET_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
TOPOLOGY_BLOCK_LABEL = "cloud.google.com/gce-topology-block"
HOSTNAME_LEVEL = "kubernetes.io/hostname"


def partition_label(topology: str) -> str:
    """The node label GKE's slice controller sets per partition of that shape (`…-partition-4x4x4-id`)."""
    return f"cloud.google.com/gke-tpu-partition-{topology}-id"


def is_sub_slice(topology: str) -> bool:
    return topology in SUB_SLICE_TOPOLOGIES


def dynamic_slice_floor(topology: str) -> tuple[str, str]:
    """(GKE floor, what needs it) for a dynamic slice of this shape."""
    if is_sub_slice(topology):
        return SUB_SLICE_MIN_GKE, f"dynamic sub-slices ({topology}, smaller than {SUB_BLOCK_TOPOLOGY})"
    return SUPER_SLICE_MIN_GKE, f"dynamic super-slices ({topology}, {SUB_BLOCK_TOPOLOGY} and larger)"


def sub_blocks_of(topology: str) -> int:
    """Sub-blocks (4x4x4 cubes) one dynamic slice occupies; a sub-slice occupies part of one."""
    return max(1, chips_of(topology) // chips_of(SUB_BLOCK_TOPOLOGY))


def topology_levels(sub_slices: list[str]) -> list[str]:
    """The Kueue Topology's levels: block, the 4x4x4 partition, each sub-slice partition in use (largest first),
    then the host."""
    partitions = sorted(set(sub_slices), key=lambda t: (-chips_of(t), t))
    return [TOPOLOGY_BLOCK_LABEL, partition_label(SUB_BLOCK_TOPOLOGY), *map(partition_label, partitions),
            HOSTNAME_LEVEL]


def worker_annotations(topology: str, slices: int, vms_per_slice: int) -> dict[str, str]:
    """The worker pod annotations of a dynamic slice: the slice shape for GKE's slice controller, and where Kueue
    places each group of pods. A super-slice is stitched from whole sub-blocks: every 16 pods (one sub-block) share
    a 4x4x4 partition. A sub-slice lies inside one partition of its own shape: a multi-slice workload asks that per
    slice (slice size = the slice's VMs), a single slice for the whole pod set (Cluster Toolkit scheduling.go)."""
    out = {SLICE_TOPOLOGY_ANNOTATION: topology}
    if not is_sub_slice(topology):
        out[PODSET_SLICE_REQUIRED_TOPOLOGY] = partition_label(SUB_BLOCK_TOPOLOGY)
        out[PODSET_SLICE_SIZE] = str(SUB_BLOCK_VMS)
    elif slices > 1:
        out[PODSET_SLICE_REQUIRED_TOPOLOGY] = partition_label(topology)
        out[PODSET_SLICE_SIZE] = str(vms_per_slice)
    else:
        out[PODSET_REQUIRED_TOPOLOGY] = partition_label(topology)
    return dict(sorted(out.items()))


# XPK 1.16.0 patches the controllers of a super-slicing cluster to these (kueue_manager.py
# `__update_kueue_resources_if_necessary`, cluster.py `install_jobset_on_cluster`): requests = limits.
DYNAMIC_SLICING_CONTROLLERS: dict[str, dict[str, object]] = {
    "kueue": {"replicas": 3, "cpu": 16, "memory_mib": 64 * 1024},
    "jobset": {"replicas": None, "cpu": 4, "memory_mib": 16 * 1024},
}

# --- the second NIC -------------------------------------------------------------------------------------
# GKE multi-network (https://cloud.google.com/kubernetes-engine/docs/how-to/setup-multinetwork-support-for-pods):
# the cluster with multi-networking and Dataplane V2, each node pool with `additionalNodeNetworkConfigs`, and per
# extra network a GKENetworkParamSet and a Network (networking.gke.io/v1). Device mode NetDevice hands the whole NIC
# to the pod (what a hostNetwork TPU worker uses); Cluster Toolkit modules/network/multivpc and XPK
# (`--enable-multi-networking`) do the same. The accelerator network profile sets up its own networks (GKE
# "About the accelerator network profile"; Cluster Toolkit refuses both at once), so the two are exclusive.
NETWORKING_API_VERSION = "networking.gke.io/v1"
# (the device modes, NetDevice by default, are config/ironwood.py's DeviceMode)

# --- NUMA-aware hosts -----------------------------------------------------------------------------------
# tpu7x-standard-4t has two NUMA nodes (GKE Ironwood concept page: 4 chips, 2 NICs, 2 NUMA nodes per VM). Cluster
# Toolkit's `enable_numa_aware_scheduling` (modules/compute/gke-node-pool/main.tf, develop 1047080375) sets exactly
# the static CPU manager, the restricted topology manager (scope left at GKE's default) and the Static memory manager
# (GKE NodeKubeletConfig; pulumi-gcp 10.2.0 NodePoolNodeConfigKubeletConfigArgs). NodeKubeletConfig has no
# reservedMemory field: GKE reserves the memory the Static policy needs itself.
NUMA_KUBELET = {
    "cpu_manager_policy": "static",
    "topology_manager": {"policy": "restricted"},
    "memory_manager": {"policy": "Static"},
}

# --- parallel containers --------------------------------------------------------------------------------
# XPK 1.16.0 `parallel_containers=2` on tpu7x-standard-4t (system_characteristics.py) and its rendering
# (core/docker_container.py `get_main_container`, core/docker_resources.py): `parallel_containers` identical
# containers named <name>-1, <name>-2, each asking for chips_per_vm / parallel_containers chips, with the same env
# and command, no container ports and no TPU_* variables of XPK's own (render/jax_jobset.py adds the process
# numbering JAX needs).
PARALLEL_CONTAINER_MACHINES = ("tpu7x-standard-4t",)
