"""Controller sizing: JobSet and Kueue requests/limits from the number of VMs the stack can have.

Pure data and functions (no Pulumi import). The formula, per controller (docs/at-scale.md):

    nodes   = sum over TPU groups of slices x VMs per slice (autoscaled pools at their maximum)
              + cpuPool.maxNodes
    memory  = max(floor_mib, ceil(mib_per_node x nodes)) MiB      requests = limits
    cpu     = max(floor_millicores, ceil(millicores_per_node x nodes)) m   request; limit = 2 x request

The memory rule is XPK's (AI-Hypercomputer/xpk `core/jobset.py` and `core/kueue_manager.py`: 1.2 MiB per
node from `kubectl get node`, at least 4096 MiB, written as the memory limit of the `manager` container of
both controllers); jobset#778 is the report that the upstream 500 MB limit is too low at scale. We also
request that memory (a controller evicted under node pressure takes the admission webhooks with it) and
grow the CPU request with the node count (XPK pins 1000m); the CPU limit leaves 2x headroom for bursts
such as a whole multislice restarting at once.

The transform `size_controller` applies a `ControllerResources` to the install's controller Deployment; the
component registers it on the install's ConfigFile (transforms do not run under the mock engine, so the
result is also recorded in the readiness ConfigMap and the component outputs, where the plan shows it).
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from ..config.stack import StackConfig
from ..ironwood import DYNAMIC_SLICING_CONTROLLERS
from ..property_paths import value_at
from ..tokens import DEPLOYMENT

MANAGER_CONTAINER = "manager"  # the controller container of the JobSet, Kueue (and LWS) release manifests


@dataclass(frozen=True)
class Sizing:
    """Per-controller coefficients of the formula."""

    mib_per_node: float
    floor_mib: int
    millicores_per_node: float
    floor_millicores: int


# XPK's memory constants (MEMORY_SIZE_PER_VM = 1.2, MIN_MEMORY_LIMIT_SIZE = 4096) for both; the CPU rule is ours.
SIZING: dict[str, Sizing] = {
    "jobset": Sizing(mib_per_node=1.2, floor_mib=4096, millicores_per_node=1.0, floor_millicores=1000),
    "kueue": Sizing(mib_per_node=1.2, floor_mib=4096, millicores_per_node=2.0, floor_millicores=1000),
}


@dataclass(frozen=True)
class ControllerResources:
    """requests/limits of one controller's `manager` container, as Kubernetes quantities."""

    addon: str
    nodes: int
    cpu_request: str
    cpu_limit: str
    memory: str
    replicas: Optional[int] = None  # None: the release manifest's

    def as_resources(self) -> dict[str, dict[str, str]]:
        return {"requests": {"cpu": self.cpu_request, "memory": self.memory},
                "limits": {"cpu": self.cpu_limit, "memory": self.memory}}

    def describe(self) -> str:
        """Compact JSON of the resources (the readiness ConfigMap's record). The node count is left out so
        that adding a slice changes the ConfigMap only when it changes the controller's resources."""
        return json.dumps(self.as_resources(), sort_keys=True, separators=(",", ":"))


def stack_node_count(stack: StackConfig) -> int:
    """Every node the stack can have: all TPU VMs of all slices, plus the CPU pool at its maximum."""
    tpu = sum(pool.slices * pool.shape.vms_per_slice for pool in stack.tpu_pools)
    return tpu + stack.cpu_pool.max_nodes


def controller_resources(addon: str, nodes: int) -> ControllerResources:
    """The formula (module docstring) for `nodes` nodes."""
    rule = SIZING[addon]
    memory = max(rule.floor_mib, math.ceil(rule.mib_per_node * nodes))
    millicores = max(rule.floor_millicores, math.ceil(rule.millicores_per_node * nodes))
    return ControllerResources(addon=addon, nodes=nodes, cpu_request=f"{millicores}m",
                               cpu_limit=f"{2 * millicores}m", memory=f"{memory}Mi")


def dynamic_slicing_sized(resources: ControllerResources) -> ControllerResources:
    """At least what XPK 1.16.0 gives a super-slicing cluster's controller (ironwood.DYNAMIC_SLICING_CONTROLLERS:
    Kueue 3 replicas of 16 CPU / 64Gi, JobSet 4 CPU / 16Gi, requests = limits); more when the node count asks."""
    floor = DYNAMIC_SLICING_CONTROLLERS[resources.addon]
    millicores = max(int(resources.cpu_request.rstrip("m")), int(str(floor["cpu"])) * 1000)
    limit = max(int(resources.cpu_limit.rstrip("m")), millicores)
    memory = max(int(resources.memory.rstrip("Mi")), int(str(floor["memory_mib"])))
    replicas = floor["replicas"]
    return ControllerResources(addon=resources.addon, nodes=resources.nodes, cpu_request=f"{millicores}m",
                               cpu_limit=f"{limit}m", memory=f"{memory}Mi",
                               replicas=int(str(replicas)) if replicas is not None else None)


def stack_controller_resources(stack: StackConfig) -> dict[str, ControllerResources]:
    """Per installed controller whose sizing is on (`<addon>.sizeForCluster`)."""
    nodes = stack_node_count(stack)
    out = {}
    if stack.jobset.size_for_cluster:
        out["jobset"] = controller_resources("jobset", nodes)
    if stack.kueue.enabled and stack.kueue.size_for_cluster:
        out["kueue"] = controller_resources("kueue", nodes)
    if any(pool.dynamic_slicing for pool in stack.tpu_pools):
        out = {addon: dynamic_slicing_sized(sized) for addon, sized in out.items()}
    return out


def size_controller(type_: str, props: Mapping[str, Any],
                    resources: ControllerResources) -> Optional[dict[str, Any]]:
    """A Deployment's properties with its `manager` container (or its only container) sized; else None.

    Matches by container, not Deployment name: the release manifests (`jobset-controller-manager`) and a
    Helm-rendered local manifest (`<release>-controller`) name the Deployment differently.
    """
    if type_ != DEPLOYMENT:
        return None
    containers = value_at(props, "spec.template.spec.containers") or []
    names = [c.get("name") for c in containers if isinstance(c, Mapping)]
    target = MANAGER_CONTAINER if MANAGER_CONTAINER in names else (names[0] if len(names) == 1 else None)
    if target is None:
        return None
    out = copy.deepcopy(dict(props))
    if resources.replicas is not None:
        out["spec"]["replicas"] = resources.replicas
    for container in out["spec"]["template"]["spec"]["containers"]:
        if container.get("name") == target:
            container["resources"] = resources.as_resources()
    return out
