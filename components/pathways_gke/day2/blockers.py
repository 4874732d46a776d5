"""Why a workload that is not Running is stuck: the first blocking reason from Kueue, its pods and its events, its
place in the Kueue queue, and a serving Service's address — pure data over what kube.py lists.

Order (what a user acts on first): Kueue holding it back (no quota, an admission check such as a provisioning
request, deactivated); then a pod's container that cannot start or keeps failing (waiting reasons below, or its
last run OOMKilled / Error); then a pod the scheduler placed nowhere (PodScheduled False, Unschedulable, with the
scheduler's message); then a pod being evicted or preempted (DisruptionTarget True); then the newest Warning event
about the workload or its pods (FailedCreate, FailedMount, Unhealthy, …); last a running pod that is not ready
(ContainersReady / Ready False).
Field meanings: k8s.io/api core/v1 types.go (ContainerStateWaiting.reason/message, ContainerStateTerminated
.reason/exitCode, ContainerStatus.lastState, PodCondition PodScheduled, Event.involvedObject / reason / message).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from .. import naming
from ..property_paths import value_at
from .state import JOBSET, K_DEACTIVATED, K_EVICTED, QUEUED, Blocker, Endpoint, QueuePosition, WorkloadStatus

# waiting reasons that mean "will not start without a fix or a wait" (kubelet images.go / kuberuntime), not the
# normal ContainerCreating / PodInitializing
BAD_WAITING = ("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "ErrImageNeverPull", "CrashLoopBackOff",
               "CreateContainerConfigError", "CreateContainerError", "RunContainerError", "PreCreateHookError",
               "PostStartHookError")
RESTART_ATTEMPT_KEY = "jobset.sigs.k8s.io/restart-attempt"  # jobset pkg/constants/constants.go l.34 (v0.12.0)


def workload_of_pod(pod: Mapping[str, Any]) -> Optional[tuple[str, str, str]]:
    labels = value_at(pod, "metadata.labels") or {}
    namespace = str(value_at(pod, "metadata.namespace") or "")
    if naming.JOBSET_NAME_KEY in labels:
        return (namespace, JOBSET, str(labels[naming.JOBSET_NAME_KEY]))
    if naming.LWS_NAME_KEY in labels:
        return (namespace, "LeaderWorkerSet", str(labels[naming.LWS_NAME_KEY]))
    return None


def pods_by_workload(pods: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[Mapping[str, Any]]]:
    out: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for pod in pods:
        key = workload_of_pod(pod)
        if key is not None:
            out.setdefault(key, []).append(pod)
    return out


def warnings_by_object(events: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[Mapping[str, Any]]]:
    """(namespace, kind, name) of the involved object -> its Warning events, newest first."""
    out: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for e in events:
        if e.get("type") not in (None, "Warning"):
            continue
        obj = e.get("involvedObject") or e.get("regarding") or {}
        key = (str(obj.get("namespace") or value_at(e, "metadata.namespace") or ""), str(obj.get("kind")),
               str(obj.get("name")))
        out.setdefault(key, []).append(e)
    for items in out.values():
        items.sort(key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or
                                     value_at(e, "metadata.creationTimestamp") or ""), reverse=True)
    return out


def current_attempt(pods: Sequence[Mapping[str, Any]], attempt: Optional[int]) -> list[Mapping[str, Any]]:
    """The pods of the JobSet's current run: a global restart recreates every Job with `restart-attempt` =
    `status.restarts` (jobset pkg/controllers/jobset_controller.go l.64); older, terminating pods are left out."""
    if attempt is None:
        return list(pods)
    return [p for p in pods if (value_at(p, "metadata.labels") or {}).get(RESTART_ATTEMPT_KEY, str(attempt))
            == str(attempt)]


def _container_blocker(pod: Mapping[str, Any]) -> Optional[Blocker]:
    name = f"pod/{value_at(pod, 'metadata.name')}"
    statuses = list(value_at(pod, "status.initContainerStatuses") or []) + \
        list(value_at(pod, "status.containerStatuses") or [])
    for c in statuses:
        waiting = value_at(c, "state.waiting") or {}
        if waiting.get("reason") in BAD_WAITING:
            message = str(waiting.get("message") or "")
            last = value_at(c, "lastState.terminated") or {}
            if last:  # CrashLoopBackOff: why the last run ended is what to fix
                message = (f"last run {last.get('reason') or 'ended'} (exit code {last.get('exitCode')})"
                           + (f": {last.get('message')}" if last.get("message") else "")
                           + (f"; {message}" if message else ""))
            return Blocker("pod", f"{name} container {c.get('name')}", str(waiting["reason"]), message)
    for c in statuses:
        for path in ("state.terminated", "lastState.terminated"):
            ended = value_at(c, path) or {}
            if ended.get("reason") in ("OOMKilled", "Error", "ContainerCannotRun", "DeadlineExceeded") and \
                    ended.get("exitCode") not in (0, None):
                return Blocker("pod", f"{name} container {c.get('name')}", str(ended["reason"]),
                               f"exit code {ended.get('exitCode')}" + (f": {ended['message']}"
                                                                       if ended.get("message") else ""))
    return None


def _scheduling_blocker(pod: Mapping[str, Any]) -> Optional[Blocker]:
    for c in value_at(pod, "status.conditions") or []:
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return Blocker("pod", f"pod/{value_at(pod, 'metadata.name')}", str(c.get("reason") or "Unschedulable"),
                           str(c.get("message") or ""))
    return None


def _disruption_blocker(pod: Mapping[str, Any]) -> Optional[Blocker]:
    """DisruptionTarget True: the pod is being evicted or preempted (PreemptionByScheduler, TerminationByKubelet,
    DeletionByTaintManager, EvictionByEvictionAPI; k8s.io/api core/v1 DisruptionTarget)."""
    for c in value_at(pod, "status.conditions") or []:
        if c.get("type") == "DisruptionTarget" and c.get("status") == "True":
            return Blocker("pod", f"pod/{value_at(pod, 'metadata.name')}", str(c.get("reason") or "DisruptionTarget"),
                           str(c.get("message") or ""))
    return None


def _unready_blocker(pod: Mapping[str, Any]) -> Optional[Blocker]:
    """A running pod whose containers are not ready (a failing readiness probe): ContainersReady / Ready False."""
    if value_at(pod, "status.phase") != "Running":
        return None
    for c in value_at(pod, "status.conditions") or []:
        if c.get("type") in ("ContainersReady", "Ready") and c.get("status") == "False":
            return Blocker("pod", f"pod/{value_at(pod, 'metadata.name')}", str(c.get("reason") or "NotReady"),
                           str(c.get("message") or ""))
    return None


def first_blocker(status: WorkloadStatus, obj: Mapping[str, Any],
                  pods: Mapping[tuple[str, str, str], Sequence[Mapping[str, Any]]],
                  events: Mapping[tuple[str, str, str], Sequence[Mapping[str, Any]]]) -> Optional[Blocker]:
    """The first blocking reason of a workload that is not Running (module doc for the order)."""
    held = next((a for a in status.admission if a.state in QUEUED + (K_DEACTIVATED, K_EVICTED)), None)
    if held is not None:
        return Blocker("kueue", f"Workload/{held.workload}", held.reason or held.state, held.message)
    key = (status.namespace, status.kind, status.name)
    mine = sorted(pods.get(key, []), key=lambda p: str(value_at(p, "metadata.name")))
    if status.kind == JOBSET:
        mine = current_attempt(mine, status.all_restarts)
    for find in (_container_blocker, _scheduling_blocker, _disruption_blocker):
        for pod in mine:
            found = find(pod)
            if found is not None:
                return found
    candidates = list(events.get(key, []))
    for pod in mine:
        candidates += events.get((status.namespace, "Pod", str(value_at(pod, "metadata.name"))), [])
    if candidates:
        e = max(candidates, key=lambda e: str(e.get("lastTimestamp") or e.get("eventTime") or ""))
        obj_ref = e.get("involvedObject") or e.get("regarding") or {}
        return Blocker("event", f"{obj_ref.get('kind', '?')}/{obj_ref.get('name', '?')}", str(e.get("reason") or ""),
                       str(e.get("message") or e.get("note") or ""))
    return next((b for b in map(_unready_blocker, mine) if b is not None), None)


def queue_positions(namespace: str, local_queue: str,
                    pending: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], QueuePosition]:
    """(namespace, Kueue Workload name) -> its position, from a LocalQueue's `pendingworkloads` (Kueue
    apis/visibility/v1beta2/types.go: PendingWorkload {metadata, localQueueName, positionInClusterQueue,
    positionInLocalQueue})."""
    out = {}
    for item in pending:
        name = str(value_at(item, "metadata.name") or "")
        if name:
            out[(namespace, name)] = QueuePosition(name, str(item.get("localQueueName") or local_queue),
                                                   int(item.get("positionInLocalQueue") or 0),
                                                   int(item.get("positionInClusterQueue") or 0))
    return out


def endpoint_of(service: Mapping[str, Any]) -> Optional[Endpoint]:
    """A workload's Service: a LoadBalancer's address is `status.loadBalancer.ingress[0]` ip (or hostname)."""
    name = value_at(service, "metadata.name")
    if not name:
        return None
    kind = str(value_at(service, "spec.type") or "ClusterIP")
    ports = value_at(service, "spec.ports") or []
    port = ports[0].get("port") if ports and isinstance(ports[0], Mapping) else None
    ingress = value_at(service, "status.loadBalancer.ingress") or []
    address = None
    if ingress and isinstance(ingress[0], Mapping):
        address = ingress[0].get("ip") or ingress[0].get("hostname")
    return Endpoint(str(name), kind, port if isinstance(port, int) else None, address)
