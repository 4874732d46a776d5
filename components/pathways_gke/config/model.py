"""The validated stack: every section's model, as the program and the builders read it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

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


@dataclass(frozen=True)
class ClusterFacts:
    """What a PathwaysCluster's child components read about their cluster, and nothing else (as pulumi-eks's
    child components take a small `cluster` object, not the whole config). Each child takes these facts plus
    its own section; `of(stack)` is the one place they are read off a validated stack."""

    name: str
    """GKE cluster name (cluster.name)."""
    location: str
    """Region or zone of the cluster (cluster.location)."""
    region: str
    """Region of the cluster's location."""
    project: str
    """GCP project id (gcp:project)."""
    project_number: Optional[str]
    """GCP project number (cluster.projectNumber), if given."""
    namespace: str
    """Kubernetes namespace of the workloads."""
    cpu_pool: str
    """GKE node-pool name of the CPU (head) pool."""
    created: bool
    """Whether the stack creates the cluster (cluster.create); false: adopted."""
    protect: bool
    """cluster.protect: whether the infrastructure is protected unless a component option says so."""
    labels: Mapping[str, Any] = field(default_factory=dict)
    """GCE labels of the cluster's resources (cluster.labels; values may be deferred stand-ins)."""

    @classmethod
    def of(cls, stack: StackConfig) -> ClusterFacts:
        c = stack.cluster
        return cls(name=c.name, location=c.location, region=c.region, project=stack.project,
                   project_number=c.project_number, namespace=stack.namespace, cpu_pool=stack.cpu_pool.name,
                   created=c.create, protect=c.protect, labels=dict(c.labels))
