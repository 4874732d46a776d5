"""Kueue queue objects derived from the pools: flavors, the ClusterQueue and its quotas, the LocalQueue,
queued provisioning. Pure functions from a validated StackConfig to Kubernetes objects (plain dicts).

Design (docs/jobset-and-kueue.md "Kueue"):
- API version `kueue.x-k8s.io/v1beta2`: the storage version of both Kueue releases we validate against
  (v0.17.1, v0.19.2); v1beta1 is served too but converted and deprecated.
- ONE resource group covering `cpu`, `memory` and `google.com/tpu`, flavors in order: the CPU pool
  first, then one flavor per TPU pool group. Kueue picks, per pod set, the first flavor whose node
  labels agree with the pod's nodeSelector and whose quota fits. With two resource groups (XPK's
  layout) a TPU worker that also requests CPU would get the CPU flavor for its CPU and the TPU flavor
  for its chips, i.e. both node-pool selectors, and never schedule.
- Quotas come from the pools: each TPU flavor gets exactly its group's chips (chips per slice x
  slices); the CPU flavor gets the CPU pool's *allocatable* CPU and memory at maxNodes (GKE's node
  reservations subtracted: quota at machine capacity would admit heads that can never be placed).
  TPU hosts' CPU and memory are not what is scarce on a slice (its chips are) and are not in the
  catalog, so TPU flavors do not limit them (HOST_RESOURCES_NOT_LIMITED).
"""

from __future__ import annotations

from typing import Any, Optional

from ..capacity import tpu_tolerations
from ..catalog import gke_allocatable
from ..config.fallback import tpu_flavor_order
from ..config.stack import StackConfig
from ..config.tpu import TpuPoolConfig
from ..ironwood import SLICE_CONTROLLER, is_sub_slice, topology_levels
from ..naming import (
    KUEUE_API_VERSION, KUEUE_CLUSTER_QUEUE, KUEUE_CPU_FLAVOR, KUEUE_PROVISIONING, KUEUE_SLICE_CHECK,
    KUEUE_SLICE_TOPOLOGY, LOCAL_QUEUE_NAME, MANAGED_BY_LABELS, NODE_POOL_LABEL, TPU_ACCELERATOR_LABEL, TPU_GROUP_LABEL,
    TPU_RESOURCE, TPU_TOPOLOGY_LABEL, kueue_tpu_flavor, slice_group_taint,
)

COVERED_RESOURCES = ("cpu", "memory", TPU_RESOURCE)
HOST_RESOURCES_NOT_LIMITED = {"cpu": "1000000", "memory": "1000Ti"}

# Queued provisioning (GKE DWS) through Kueue's ProvisioningRequest admission check
# (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest)
QUEUED_PROVISIONING_CLASS = "queued-provisioning.gke.io"
PROVISIONING_CONTROLLER = "kueue.x-k8s.io/provisioning-request"
PROVISIONING_NODE_SELECTOR = {"key": "autoscaling.gke.io/provisioning-request",
                              "valueFromProvisioningClassDetail": "ResizeRequestName"}

def cpu_quantity(millicores: int) -> str:
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def tpu_chips(pool: TpuPoolConfig) -> int:
    """Chips a TPU pool group provides: chips per slice x slices."""
    return pool.shape.chips * pool.slices


def cpu_pool_quota(stack: StackConfig) -> dict[str, str]:
    machine = stack.cpu_pool.machine
    if machine is None:  # config/checks.py refuses this when Kueue is on
        raise ValueError(f"cpuPool.machineType {stack.cpu_pool.machine_type!r} has no known shape")
    per_node = gke_allocatable(machine)
    nodes = stack.cpu_pool.max_nodes
    return {"cpu": cpu_quantity(per_node.millicores * nodes), "memory": f"{per_node.memory_mib * nodes}Mi"}


# --- objects -------------------------------------------------------------------------------------

def _meta(name: str, namespace: Optional[str] = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": dict(MANAGED_BY_LABELS)}
    if namespace is not None:
        meta["namespace"] = namespace
    return meta


def cpu_flavor(stack: StackConfig) -> dict[str, Any]:
    return {"apiVersion": KUEUE_API_VERSION, "kind": "ResourceFlavor", "metadata": _meta(KUEUE_CPU_FLAVOR),
            "spec": {"nodeLabels": {NODE_POOL_LABEL: stack.cpu_pool.name}}}


def tpu_flavor(pool: TpuPoolConfig, adopted: bool = False) -> dict[str, Any]:
    """A group's flavor. On an adopted cluster the group's slices carry its taint: the flavor lists it
    (`nodeTaints`: Kueue assigns the flavor only to pod sets that tolerate it) and adds the toleration."""
    shape = pool.shape
    labels = {TPU_GROUP_LABEL: pool.name, TPU_ACCELERATOR_LABEL: shape.accelerator_label}
    topology: dict[str, Any] = {}
    if pool.dynamic_slicing:
        # no topology label: a workload's slice is not the sub-blocks' 4x4x4 (Kueue injects a flavor's node labels
        # into the pods); TAS places it through the Topology (XPK kueue_config.yaml.j2, Cluster Toolkit
        # kueue-configuration-dynamic-slicing.yaml.tftpl)
        topology["topologyName"] = KUEUE_SLICE_TOPOLOGY
    else:
        labels[TPU_TOPOLOGY_LABEL] = shape.topology
    tolerations = tpu_tolerations(pool.capacity)
    taints = []
    if adopted:
        taint = slice_group_taint(pool.name)
        taints = [{"key": taint["key"], "value": taint["value"], "effect": "NoSchedule"}]
        tolerations.append({**taints[0], "operator": "Equal"})
    return {
        "apiVersion": KUEUE_API_VERSION, "kind": "ResourceFlavor", "metadata": _meta(kueue_tpu_flavor(pool.name)),
        "spec": {
            "nodeLabels": dict(sorted(labels.items())),
            **topology,
            "tolerations": tolerations,
            **({"nodeTaints": taints} if taints else {}),
        },
    }


def dynamic_slice_topologies(stack: StackConfig) -> list[str]:
    """The slice shapes the stack's workloads ask GKE's slice controller for."""
    return sorted({w.dynamic_slice.topology for w in stack.workloads if w.dynamic_slice is not None})


def slice_topology(stack: StackConfig) -> dict[str, Any]:
    """The Kueue Topology of dynamic slicing: block, 4x4x4 partition, each sub-slice partition in use, host."""
    sub = [t for t in dynamic_slice_topologies(stack) if is_sub_slice(t)]
    return {"apiVersion": KUEUE_API_VERSION, "kind": "Topology", "metadata": _meta(KUEUE_SLICE_TOPOLOGY),
            "spec": {"levels": [{"nodeLabel": level} for level in topology_levels(sub)]}}


def slice_admission_check() -> dict[str, Any]:
    """The AdmissionCheck GKE's slice controller answers: it forms the Slice before the workload starts."""
    return {"apiVersion": KUEUE_API_VERSION, "kind": "AdmissionCheck", "metadata": _meta(KUEUE_SLICE_CHECK),
            "spec": {"controllerName": SLICE_CONTROLLER}}


def _resources(values: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"name": r, "nominalQuota": str(values[r])} for r in COVERED_RESOURCES]


def cluster_queue(stack: StackConfig) -> dict[str, Any]:
    flavors = [{"name": KUEUE_CPU_FLAVOR, "resources": _resources({**cpu_pool_quota(stack), TPU_RESOURCE: 0})}]
    for pool in tpu_flavor_order(stack):  # ordered fallback lists set the order (config/fallback.py)
        flavors.append({"name": kueue_tpu_flavor(pool.name),
                        "resources": _resources({**HOST_RESOURCES_NOT_LIMITED, TPU_RESOURCE: tpu_chips(pool)})})
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": "BestEffortFIFO",
        "preemption": {"reclaimWithinCohort": "Never", "withinClusterQueue": "LowerPriority"},
        "resourceGroups": [{"coveredResources": list(COVERED_RESOURCES), "flavors": flavors}],
    }
    # each check only on its flavors (Kueue admissionChecksStrategy.onFlavors): a fallback from a reservation to a
    # queued (DWS) group is admitted without a ProvisioningRequest on the reserved flavor, and only a dynamic-slicing
    # flavor waits for GKE's slice controller; flavors listed in the ClusterQueue's (fallback) order
    order = tpu_flavor_order(stack)
    checks = []
    queued = [kueue_tpu_flavor(p.name) for p in order if p.capacity == "queued"]
    if queued:
        checks.append({"name": KUEUE_PROVISIONING, "onFlavors": queued})
    sliced = [kueue_tpu_flavor(p.name) for p in order if p.dynamic_slicing]
    if sliced:
        checks.append({"name": KUEUE_SLICE_CHECK, "onFlavors": sliced})
    if checks:
        spec["admissionChecksStrategy"] = {"admissionChecks": checks}
    return {"apiVersion": KUEUE_API_VERSION, "kind": "ClusterQueue", "metadata": _meta(KUEUE_CLUSTER_QUEUE), "spec": spec}


def local_queue(stack: StackConfig) -> dict[str, Any]:
    return {"apiVersion": KUEUE_API_VERSION, "kind": "LocalQueue", "metadata": _meta(LOCAL_QUEUE_NAME, stack.namespace),
            "spec": {"clusterQueue": KUEUE_CLUSTER_QUEUE}}


def provisioning_request_config() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE_API_VERSION, "kind": "ProvisioningRequestConfig", "metadata": _meta(KUEUE_PROVISIONING),
        "spec": {
            "provisioningClassName": QUEUED_PROVISIONING_CLASS,
            "managedResources": [TPU_RESOURCE],
            "podSetUpdates": {"nodeSelector": [dict(PROVISIONING_NODE_SELECTOR)]},
        },
    }


def admission_check() -> dict[str, Any]:
    return {
        "apiVersion": KUEUE_API_VERSION, "kind": "AdmissionCheck", "metadata": _meta(KUEUE_PROVISIONING),
        "spec": {
            "controllerName": PROVISIONING_CONTROLLER,
            "parameters": {"apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig",
                           "name": KUEUE_PROVISIONING},
        },
    }


def kueue_objects(stack: StackConfig) -> list[tuple[str, dict[str, Any]]]:
    """(child-name suffix, object) for every Kueue object, in a stable order. Suffixes are public API."""
    out: list[tuple[str, dict[str, Any]]] = [("flavor-cpu", cpu_flavor(stack))]
    if any(p.dynamic_slicing for p in stack.tpu_pools):
        out += [("slice-topology", slice_topology(stack)), ("slice-admission-check", slice_admission_check())]
    out += [(f"flavor-tpu-{pool.name}", tpu_flavor(pool, adopted=not stack.cluster.create)) for pool in stack.tpu_pools]
    if any(p.capacity == "queued" for p in stack.tpu_pools):
        out += [("provisioning-config", provisioning_request_config()), ("admission-check", admission_check())]
    out += [("cluster-queue", cluster_queue(stack)), ("local-queue", local_queue(stack))]
    return out
