"""One dispatch from a workload model to its Kubernetes objects — plain data, no Pulumi import.

`objects_for(workload, placement)` picks the builder a workload's runtime and mode call for: a Pathways JobSet
(pathways_jobset.py), a JAX JobSet (jax_jobset.py), or a serving LeaderWorkerSet with its Service or its clients'
proxies (serving_lws.py). The workload components register what it returns, the identity planner reads its pod
templates, and the tests compare against it, so no caller repeats the choice or the Secret's name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from ..config.placement import Placement
from ..config.workloads import JaxWorkloadConfig, PathwaysWorkloadConfig, WorkloadConfig
from ..naming import workload_secret_name
from .jax_jobset import build_jax_jobset
from .pathways_jobset import build_pathways_jobset
from .serving_lws import serving_objects


@dataclass(frozen=True)
class WorkloadObjects:
    """Every object one workload renders to."""

    primary: dict[str, Any]
    """The object Kueue admits and the workload's pods belong to: the JobSet, or the LeaderWorkerSet."""
    service: Optional[dict[str, Any]] = None
    """Mode serving: the Service in front of the leaders."""
    clients: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)
    """Mode service: per client, its IFRT proxy (Deployment, Service)."""
    secret_name: Optional[str] = None
    """The Secret the pods read their secretEnv from (None when the workload has none)."""

    @property
    def kind(self) -> str:
        return str(self.primary["kind"])

    def pod_templates(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """(role, pod template) of every pod the workload runs: each replicated job of a JobSet, or a
        LeaderWorkerSet's leader and workers and then each client's proxy (sorted by client)."""
        if self.kind == "JobSet":
            for rjob in self.primary["spec"]["replicatedJobs"]:
                yield rjob["name"], rjob["template"]["spec"]["template"]
            return
        group = self.primary["spec"]["leaderWorkerTemplate"]
        yield "leader", group["leaderTemplate"]
        yield "worker", group["workerTemplate"]
        for client, (proxy, _service) in sorted(self.clients.items()):
            yield f"proxy-{client}", proxy["spec"]["template"]


def secret_name_for(workload: WorkloadConfig) -> Optional[str]:
    """The name of the Secret holding a workload's secretEnv values, when it has any."""
    return workload_secret_name(workload.name) if workload.secret_env else None


def objects_for(workload: WorkloadConfig, placement: Placement) -> WorkloadObjects:
    """The objects of a validated workload running on `placement` (see the module doc)."""
    if not isinstance(workload, (JaxWorkloadConfig, PathwaysWorkloadConfig)):
        raise TypeError(f"not a workload model: {type(workload).__name__}")
    secret = secret_name_for(workload)
    if isinstance(workload, JaxWorkloadConfig):
        return WorkloadObjects(build_jax_jobset(workload, placement, secret_name=secret), secret_name=secret)
    if not workload.on_lws:
        return WorkloadObjects(build_pathways_jobset(workload, placement, secret_name=secret), secret_name=secret)
    made = serving_objects(workload, placement, secret_name=secret)
    return WorkloadObjects(made.lws, service=made.service, clients=dict(made.clients), secret_name=secret)


__all__ = ["WorkloadObjects", "objects_for", "secret_name_for"]
