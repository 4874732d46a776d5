"""Where a workload runs: the plain facts a JobSet builder needs from the cluster side."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..catalog import SliceShape
from ..naming import LOCAL_QUEUE_NAME, workload_policy_name
from .model import StackConfig
from .workloads import WorkloadConfig


@dataclass(frozen=True)
class WorkloadTarget:
    namespace: str
    cpu_pool: str  # GKE node-pool name of the CPU (head) pool
    tpu_group: Optional[str] = None  # TPU pool group name (node label pathways-gke/tpu-group)
    shape: Optional[SliceShape] = None
    slices: int = 0
    capacity: str = "on-demand"  # on-demand | spot | reservation | flex-start | queued
    placement_policy: Optional[str] = None  # tpu7x workload-policy name, for the worker nodeSelector
    queue_name: Optional[str] = None  # Kueue LocalQueue when Kueue is enabled


def target_for(stack: StackConfig, workload: WorkloadConfig) -> WorkloadTarget:
    pool = stack.pool(workload.tpu_pool) if workload.tpu_pool else None
    shape = pool.shape if pool else None
    return WorkloadTarget(
        namespace=stack.namespace,
        cpu_pool=stack.cpu_pool.name,
        tpu_group=pool.name if pool else None,
        shape=shape,
        slices=pool.slices if pool else 0,
        capacity=pool.capacity if pool else "on-demand",
        placement_policy=(workload_policy_name(stack.cluster.name, pool.name)
                          if pool and shape and shape.needs_workload_policy else None),
        queue_name=LOCAL_QUEUE_NAME if stack.kueue.enabled else None,
    )
