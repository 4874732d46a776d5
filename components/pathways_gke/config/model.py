"""The validated stack: every section's model, as the program and the builders read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .access import BucketConfig
from .addons import JobSetConfig, KueueConfig, LwsConfig
from .cluster import ClusterConfig, CpuPoolConfig
from .observability import ObservabilityConfig
from .tpu import TpuPoolConfig
from .workloads import WorkloadConfig


@dataclass(frozen=True)
class StackConfig:
    project: str
    cluster: ClusterConfig
    cpu_pool: CpuPoolConfig
    tpu_pools: tuple[TpuPoolConfig, ...]
    jobset: JobSetConfig
    kueue: KueueConfig
    workloads: tuple[WorkloadConfig, ...]
    namespace: str = "default"
    secret_names: tuple[str, ...] = field(default_factory=tuple)
    buckets: tuple[BucketConfig, ...] = field(default_factory=tuple)
    observability: ObservabilityConfig = field(default_factory=ObservabilityConfig)
    lws: LwsConfig = field(default_factory=LwsConfig)

    @property
    def needs_lws(self) -> bool:
        """The LeaderWorkerSet controller is installed only for workloads that run on one."""
        return any(w.on_lws for w in self.workloads)

    def pool(self, name: str) -> Optional[TpuPoolConfig]:
        return next((p for p in self.tpu_pools if p.name == name), None)
