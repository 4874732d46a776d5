"""Cluster services as data: what ClusterServices installs and creates, decided from the stack config.

`services_spec(stack)` is the single place that decides which objects exist; the Pulumi component
(`pathways_gke.services.ClusterServices`) only turns this spec into resources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..config.stack import StackConfig
from ..naming import JOBSET_CRD, LOCAL_QUEUE_NAME, LWS_CRD, MANAGED_BY_LABELS, SERVICES_CONFIGMAP
from .checkpointing import checkpoint_configurations
from .install import InstallSource, install_source
from .jobset_config import describe_gates, effective_feature_gates
from .kueue import kueue_objects
from .lws import gate_objects
from .priority import PRIORITY_LADDER, priority_class
from .networks import network_objects
from .sizing import ControllerResources, stack_controller_resources



@dataclass(frozen=True)
class ServicesSpec:
    namespace: str
    namespace_object: Optional[dict[str, Any]]  # None for `default` (never created or deleted by us)
    cpu_pool: str  # GKE node-pool name the controllers are pinned to
    jobset: InstallSource
    kueue: Optional[InstallSource]
    protected_crds: tuple[str, ...]
    priority_classes: tuple[tuple[str, dict[str, Any]], ...]  # (child suffix, object)
    kueue_objects: tuple[tuple[str, dict[str, Any]], ...]
    marker: dict[str, Any]  # the readiness marker ConfigMap
    queue_name: Optional[str]
    resources: dict[str, ControllerResources]  # per addon whose controller is sized for the cluster
    lws: Optional[InstallSource] = None  # only when a workload runs in mode serving or service
    lws_gate: tuple[tuple[str, dict[str, Any]], ...] = ()  # the LWS webhook gate (addons/lws.py)
    jobset_feature_gates: tuple[tuple[str, bool], ...] = ()  # written into jobset-manager-config (jobset_config.py)
    checkpoint_configurations: tuple[tuple[str, dict[str, Any]], ...] = ()  # multi-tier checkpointing (checkpointing.py)
    network_objects: tuple[tuple[str, dict[str, Any]], ...] = ()  # cluster.additionalNetworks (addons/networks.py)


def namespace_object(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(MANAGED_BY_LABELS)}}


def readiness_marker(namespace: str, jobset: InstallSource, kueue: Optional[InstallSource],
                     queue_name: Optional[str], lws: Optional[InstallSource] = None,
                     resources: Optional[dict[str, ControllerResources]] = None,
                     jobset_feature_gates: Optional[dict[str, bool]] = None) -> dict[str, Any]:
    """ConfigMap created only once the installs are awaited (their controllers Available).

    Workloads depend on it (and on the installs): it is the readiness gate as an object the plan
    shows, and it records what is installed for people and tools (`kubectl get cm pathways-gke-services`).
    """
    data = {"jobset.version": jobset.version, "jobset.source": jobset.file}
    if kueue is not None:
        data.update({"kueue.version": kueue.version, "kueue.source": kueue.file,
                     "kueue.localQueue": queue_name or ""})
    if lws is not None:
        data.update({"lws.version": lws.version, "lws.source": lws.file})
    for addon, sized in (resources or {}).items():
        data[f"{addon}.resources"] = sized.describe()
        if sized.replicas is not None:
            data[f"{addon}.replicas"] = str(sized.replicas)
    if jobset_feature_gates:
        data["jobset.featureGates"] = describe_gates(jobset_feature_gates)
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": SERVICES_CONFIGMAP, "namespace": namespace, "labels": dict(MANAGED_BY_LABELS)},
            "data": dict(sorted(data.items()))}


def needs_priority_classes(stack: StackConfig) -> bool:
    return stack.kueue.enabled or any(w.priority_class for w in stack.workloads)


def services_spec(stack: StackConfig) -> ServicesSpec:
    jobset = install_source("jobset", stack.jobset.version, stack.jobset.manifest)
    kueue = install_source("kueue", stack.kueue.version, stack.kueue.manifest) if stack.kueue.enabled else None
    queue_name = LOCAL_QUEUE_NAME if stack.kueue.enabled else None
    lws = install_source("lws", stack.lws.version, stack.lws.manifest) if stack.needs_lws else None
    priorities = tuple((f"priority-{name}", priority_class(name, value)) for name, value in PRIORITY_LADDER) \
        if needs_priority_classes(stack) else ()
    resources = stack_controller_resources(stack)
    gates = effective_feature_gates(stack)
    return ServicesSpec(
        namespace=stack.namespace,
        namespace_object=None if stack.namespace == "default" else namespace_object(stack.namespace),
        cpu_pool=stack.cpu_pool.name,
        jobset=jobset,
        kueue=kueue,
        protected_crds=(JOBSET_CRD, *((LWS_CRD,) if lws is not None else ())),
        priority_classes=priorities,
        kueue_objects=tuple(kueue_objects(stack)) if stack.kueue.enabled else (),
        marker=readiness_marker(stack.namespace, jobset, kueue, queue_name, lws, resources, gates),
        queue_name=queue_name,
        resources=resources,
        lws=lws,
        lws_gate=gate_objects(stack.namespace, stack.lws.gate_image, stack.cpu_pool.name) if lws is not None else (),
        jobset_feature_gates=tuple(gates.items()),
        checkpoint_configurations=tuple(checkpoint_configurations(stack)),
        network_objects=tuple(network_objects(stack)),
    )


__all__ = ["ServicesSpec", "needs_priority_classes", "namespace_object", "readiness_marker", "services_spec"]
