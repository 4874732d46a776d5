"""A workload's state in the PathwaysJob vocabulary, derived from the objects the controllers write — pure data.

Sources (the fields read here, and what they mean; lines at the tags named):
- JobSet (kubernetes-sigs/jobset v0.12.0 api/jobset/v1alpha2/jobset_types.go): conditions Completed (l.106),
  Failed (l.108), Suspended (l.110), RestartingJobSet (l.112, set True by pkg/controllers/failure_policy.go l.254
  while a failure-policy restart recreates every Job, False once the Jobs are ready), StartupPolicyInProgress
  (l.114), StartupPolicyCompleted (l.116); `status.restarts` (l.213: every global restart),
  `status.restartsCountTowardsMax` (l.218: the ones that count against `spec.failurePolicy.maxRestarts`, l.482),
  `replicatedJobsStatus[].jobRestartsCountTowardsMax[]` (l.288: per-Job restarts that count too — the restart
  actions check `restartsCountTowardsMax + sum(jobRestartsCountTowardsMax) < maxRestarts`, l.416), `terminalState`
  (l.223), `replicatedJobsStatus[]` {name, ready, active, succeeded, failed, suspended} counted in child Jobs; the
  Jobs per replicated job are `spec.replicatedJobs[].replicas`.
- The PathwaysJob operator's mapping (google/pathways-job internal/controller/pathwaysjob_controller.go,
  setPathwaysJobStatusBasedOnJobSetStatus): StartupPolicyInProgress -> Pending, StartupPolicyCompleted -> Running,
  Suspended -> Suspended, Completed / Failed -> the terminal state. We read every condition rather than the last
  one, and add Restarting (RestartingJobSet, a failed child Job, or a restart recreating the Jobs) and Degraded
  (started, but some child Jobs are no longer ready).
- LeaderWorkerSet (kubernetes-sigs/lws v0.10.0 api/leaderworkerset/v1/leaderworkerset_types.go): `readyReplicas`
  (l.373: groups ready, *updated or not*), `updatedReplicas` (l.377: groups on the current revision, ready or not),
  `replicas` (l.381: groups created), conditions Available (l.400), Progressing (l.407), UpdateInProgress (l.412).
  pkg/controllers/leaderworkerset_controller.go l.495-503 sets Available only when every group is ready *and*
  updated, UpdateInProgress while fewer groups are updated than asked for: so "ready" needs Available (or, without
  conditions, ready and updated counts both at `spec.replicas`) and `observedGeneration` caught up. An LWS never
  terminates and has no suspend field: scaled to zero groups it is Suspended.
- Kueue Workload (kubernetes-sigs/kueue v0.19.2 apis/kueue/v1beta2/workload_types.go): `spec.active` (l.68:
  false evicts and keeps it out of the queue — Deactivated), conditions Admitted (l.931), QuotaReserved (l.939),
  Finished (l.990), PodsReady (l.994), Evicted (l.1005), Preempted (l.1012), Requeued (l.1015: back in the queue
  after an eviction), `status.admissionChecks[]` {name, state Pending|Ready|Retry|Rejected, message} (l.662, l.796;
  the ProvisioningRequest check copies the request's Provisioned message, e.g. "Waiting for resources…",
  pkg/controller/admissionchecks/provisioning/controller.go l.668-672), `status.admission` {clusterQueue,
  podSetAssignments[]}. v1beta1 has the same fields. Each condition's part in admission_of: Finished -> Finished;
  spec.active false or DeactivationTarget (l.1019) -> Deactivated; Evicted (+ Preempted's detailed reason) ->
  Pending when Requeued True or a requeueAt is set, else Evicted; Admitted -> Admitted; QuotaReserved True ->
  QuotaReserved (a check not Ready, else Admitted False, explains); BlockedOnPreemptionGates (l.936) or
  QuotaReserved False -> Pending. PodsReady and WaitingForReplacementPods describe pods, which the blockers read.
- Pods (k8s.io/api core/v1 types.go): `status.conditions[]` PodScheduled False reason Unschedulable (message: why
  the scheduler placed it nowhere), `containerStatuses[]` / `initContainerStatuses[]` `state.waiting`
  {reason, message} (ImagePullBackOff, ErrImagePull, CrashLoopBackOff, CreateContainerConfigError, …),
  `state.terminated` / `lastState.terminated` {reason (OOMKilled, Error), exitCode, message}, `restartCount`.
  Events (events.k8s.io/v1 via core/v1 `Event`): type Warning, `reason`, `message`, `involvedObject`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Optional, Sequence

from ..naming import RUNTIME_LABEL
from ..property_paths import value_at

PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED = "Pending", "Running", "Suspended", "Completed", "Failed"
RESTARTING, DEGRADED = "Restarting", "Degraded"
STATES = (PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED, RESTARTING, DEGRADED)
TERMINAL = (COMPLETED, FAILED)

JOBSET, LWS = "JobSet", "LeaderWorkerSet"
# Kueue Workload verdicts (Admission.state)
K_PENDING, K_QUOTA, K_ADMITTED, K_EVICTED, K_FINISHED, K_DEACTIVATED = (
    "Pending", "QuotaReserved", "Admitted", "Evicted", "Finished", "Deactivated")
KUEUE_STATES = (K_PENDING, K_QUOTA, K_ADMITTED, K_EVICTED, K_FINISHED, K_DEACTIVATED)
QUEUED = (K_PENDING, K_QUOTA)  # in the queue (or back in it after an eviction): the workload is Pending


@dataclass(frozen=True)
class Group:
    """One replicated job of a JobSet (counts in child Jobs) or the groups of an LWS (counts in groups)."""

    name: str
    replicas: int
    ready: int = 0
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    suspended: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "replicas": self.replicas, "ready": self.ready, "active": self.active,
                "succeeded": self.succeeded, "failed": self.failed, "suspended": self.suspended}


@dataclass(frozen=True)
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    time: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"type": self.type, "status": self.status, "reason": self.reason, "message": self.message,
                "lastTransitionTime": self.time or None}


@dataclass(frozen=True)
class Check:
    """One Kueue admission check of a Workload (e.g. the ProvisioningRequest check of queued capacity)."""

    name: str
    state: str
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "message": self.message}


@dataclass(frozen=True)
class Admission:
    """A Kueue Workload of ours: `state` is one of KUEUE_STATES (QuotaReserved: admission checks pending)."""

    workload: str
    state: str
    cluster_queue: Optional[str] = None
    flavors: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # pod set -> resource -> flavor
    reason: str = ""
    message: str = ""
    checks: tuple[Check, ...] = ()
    local_queue: Optional[str] = None

    def as_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "state": self.state, "clusterQueue": self.cluster_queue,
                "localQueue": self.local_queue, "flavors": {k: dict(v) for k, v in self.flavors.items()},
                "reason": self.reason, "message": self.message, "checks": [c.as_json() for c in self.checks]}


@dataclass(frozen=True)
class Blocker:
    """The first thing that holds a workload back, from its pods, its events or Kueue (blockers.py)."""

    source: str  # pod | event | kueue
    object: str  # pod/<name>, JobSet/<name>, Workload/<name>
    reason: str
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"source": self.source, "object": self.object, "reason": self.reason, "message": self.message}

    def line(self) -> str:
        return f"{self.reason} ({self.object})" + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class QueuePosition:
    """From Kueue's visibility API (visibility.kueue.x-k8s.io pendingworkloads)."""

    workload: str
    local_queue: str
    in_local_queue: int
    in_cluster_queue: int

    def as_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "localQueue": self.local_queue,
                "positionInLocalQueue": self.in_local_queue, "positionInClusterQueue": self.in_cluster_queue}


@dataclass(frozen=True)
class Endpoint:
    """A serving workload's Service: its type and, once the load balancer has one, its address."""

    service: str
    type: str
    port: Optional[int]
    address: Optional[str]

    def as_json(self) -> dict[str, Any]:
        return {"service": self.service, "type": self.type, "port": self.port, "address": self.address}


@dataclass(frozen=True)
class WorkloadStatus:
    name: str
    namespace: str
    kind: str
    state: str
    restarts: Optional[int]  # restarts that count against maxRestarts; None for an LWS (it keeps no count)
    groups: tuple[Group, ...]
    ready: int  # child Jobs (JobSet) or groups (LWS) ready or done
    total: int
    condition: Optional[Condition] = None
    admission: tuple[Admission, ...] = ()
    runtime: Optional[str] = None
    max_restarts: Optional[int] = None
    all_restarts: Optional[int] = None  # status.restarts: every global restart, counted or not
    updated: Optional[int] = None  # LWS: groups on the current revision
    rolled_out: bool = True  # LWS: the current revision is up on every group (Available)
    blocker: Optional[Blocker] = None
    queue: Optional[QueuePosition] = None
    endpoint: Optional[Endpoint] = None

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def unit(self) -> str:
        return "groups" if self.kind == LWS else "jobs"

    @property
    def restarts_text(self) -> str:
        if self.restarts is None:
            return "-"
        return f"{self.restarts}/{self.max_restarts}" if self.max_restarts is not None else str(self.restarts)

    @property
    def summary(self) -> str:
        """`3/3 jobs ready`, or what a finished run did: `3/3 jobs succeeded`, `1 of 3 jobs failed`."""
        if self.state == COMPLETED:
            done = sum(min(g.replicas, g.succeeded) for g in self.groups)
            return f"{done}/{self.total} {self.unit} succeeded"
        if self.state == FAILED:
            failed = sum(g.failed for g in self.groups)
            return f"{failed} of {self.total} {self.unit} failed" if failed else f"failed ({self.total} {self.unit})"
        text = f"{self.ready}/{self.total} {self.unit} ready"
        if self.kind == LWS and self.updated is not None and not self.rolled_out and self.updated < self.total:
            text += f", {min(self.updated, self.total)}/{self.total} updated"
        return text

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "namespace": self.namespace, "kind": self.kind, "runtime": self.runtime,
            "state": self.state, "restarts": self.restarts,
            "restartBudget": None if self.restarts is None else {
                "used": self.restarts, "max": self.max_restarts, "all": self.all_restarts},
            "ready": {"ready": self.ready, "total": self.total, "unit": self.unit},
            "summary": self.summary,
            "rollout": None if self.kind != LWS else {"updated": self.updated or 0, "total": self.total,
                                                     "complete": self.rolled_out},
            "groups": [g.as_json() for g in self.groups],
            "condition": self.condition.as_json() if self.condition else None,
            "kueue": [a.as_json() for a in self.admission],
            "blocker": self.blocker.as_json() if self.blocker else None,
            "queue": self.queue.as_json() if self.queue else None,
            "endpoint": self.endpoint.as_json() if self.endpoint else None,
        }

    def with_details(self, blocker: Optional[Blocker] = None, queue: Optional[QueuePosition] = None,
                     endpoint: Optional[Endpoint] = None) -> "WorkloadStatus":
        return replace(self, blocker=blocker, queue=queue, endpoint=endpoint)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def conditions_of(obj: Mapping[str, Any]) -> list[Condition]:
    out = []
    for c in value_at(obj, "status.conditions") or []:
        if isinstance(c, Mapping) and c.get("type"):
            out.append(Condition(str(c["type"]), str(c.get("status", "")), str(c.get("reason") or ""),
                                 str(c.get("message") or ""), str(c.get("lastTransitionTime") or "")))
    return out


def _true(conditions: Sequence[Condition], kind: str) -> Optional[Condition]:
    return next((c for c in conditions if c.type == kind and c.status == "True"), None)


def _false(conditions: Sequence[Condition], kind: str) -> Optional[Condition]:
    return next((c for c in conditions if c.type == kind and c.status == "False"), None)


def latest(conditions: Sequence[Condition]) -> Optional[Condition]:
    """The condition that changed last (RFC 3339 times sort as text; on a tie, the later one in the list)."""
    if not conditions:
        return None
    return max(enumerate(conditions), key=lambda ic: (ic[1].time, ic[0]))[1]


# --- Kueue -----------------------------------------------------------------------------------------------------


def admission_of(workload: Mapping[str, Any]) -> Admission:
    """One Kueue Workload's verdict (see the module doc): Finished; Deactivated (`spec.active: false`); Evicted,
    unless `Requeued` is True (then it is back in the queue: Pending); Admitted; QuotaReserved (quota held, admission
    checks pending: the first check not Ready explains); else Pending (the QuotaReserved False reason explains)."""
    conditions = conditions_of(workload)
    name = str(value_at(workload, "metadata.name") or "")
    flavors: dict[str, dict[str, str]] = {}
    for assignment in value_at(workload, "status.admission.podSetAssignments") or []:
        if isinstance(assignment, Mapping):
            flavors[str(assignment.get("name", ""))] = {str(k): str(v) for k, v in
                                                        (assignment.get("flavors") or {}).items()}
    checks = tuple(Check(str(c.get("name", "")), str(c.get("state", "")), str(c.get("message") or ""))
                   for c in value_at(workload, "status.admissionChecks") or [] if isinstance(c, Mapping))
    base = {"cluster_queue": value_at(workload, "status.admission.clusterQueue"), "flavors": flavors,
            "checks": checks, "local_queue": value_at(workload, "spec.queueName")}
    finished = _true(conditions, "Finished")
    if finished is not None:
        return Admission(name, K_FINISHED, reason=finished.reason, message=finished.message, **base)
    target = _true(conditions, "DeactivationTarget")  # Kueue is about to set spec.active false (l.1019)
    if value_at(workload, "spec.active") is False or target is not None:
        evicted = _true(conditions, "Evicted") or target
        return Admission(name, K_DEACTIVATED, reason=evicted.reason if evicted else "Deactivated",
                         message=evicted.message if evicted else "spec.active is false: held out of the queue", **base)
    evicted, requeued = _true(conditions, "Evicted"), _true(conditions, "Requeued")
    preempted = _true(conditions, "Preempted")  # accompanies Evicted reason Preempted with the detailed reason
    if evicted is not None and preempted is not None and preempted.reason:
        evicted = replace(evicted, message=f"{evicted.message} ({preempted.reason}: {preempted.message})".replace(
            " ()", "").replace(": )", ")"))
    if evicted is not None and _true(conditions, "QuotaReserved") is None:
        if requeued is not None:  # preempted (or timed out) and back in the queue
            return Admission(name, K_PENDING, reason=f"Requeued after {evicted.reason}",
                             message=f"{evicted.message}; requeued: {requeued.message}".strip("; :"), **base)
        requeue_at = value_at(workload, "status.requeueState.requeueAt")
        if requeue_at:  # evicted, back in the queue once its backoff ends (Requeued False until then)
            return Admission(name, K_PENDING, reason=f"Requeued after {evicted.reason}",
                             message=f"{evicted.message}; back in the queue at {requeue_at}".strip("; "), **base)
        return Admission(name, K_EVICTED, reason=evicted.reason, message=evicted.message, **base)
    admitted = _true(conditions, "Admitted")
    if admitted is not None:
        return Admission(name, K_ADMITTED, reason=admitted.reason, message=admitted.message, **base)
    reserved = _true(conditions, "QuotaReserved")
    if reserved is not None:
        waiting = next((c for c in checks if c.state != "Ready"), None)
        if waiting is not None:  # the check's own words (a ProvisioningRequest: "Waiting for resources…")
            return Admission(name, K_QUOTA, reason=f"admission check {waiting.name} {waiting.state}",
                             message=waiting.message, **base)
        not_admitted = _false(conditions, "Admitted")
        return Admission(name, K_QUOTA, reason=not_admitted.reason if not_admitted else reserved.reason,
                         message=not_admitted.message if not_admitted else reserved.message, **base)
    gated = _true(conditions, "BlockedOnPreemptionGates")  # it could preempt, but a preemption gate holds it (l.936)
    if gated is not None:
        return Admission(name, K_PENDING, reason=gated.reason or "PreemptionGated", message=gated.message, **base)
    pending = next((c for c in conditions if c.type == "QuotaReserved"), None)
    return Admission(name, K_PENDING, reason=pending.reason if pending else "",
                     message=pending.message if pending else "waiting for Kueue to reserve quota", **base)


def owner_key(workload: Mapping[str, Any]) -> Optional[tuple[str, str, str]]:
    """(namespace, kind, name) of the JobSet / LWS a Kueue Workload belongs to (its controller owner reference)."""
    refs = [r for r in value_at(workload, "metadata.ownerReferences") or [] if isinstance(r, Mapping)]
    ref = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    if ref is None:
        return None
    return (str(value_at(workload, "metadata.namespace") or ""), str(ref.get("kind")), str(ref.get("name")))


def index_by_owner(workloads: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str, str], list[Mapping[str, Any]]]:
    """Kueue Workloads by owner, built once: status is linear in the objects, not workloads × Kueue Workloads."""
    out: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
    for w in workloads:
        key = owner_key(w)
        if key is not None:
            out.setdefault(key, []).append(w)
    return out


def owned_by(workload: Mapping[str, Any], kind: str, name: str) -> bool:
    return any(isinstance(ref, Mapping) and ref.get("kind") == kind and ref.get("name") == name
               for ref in value_at(workload, "metadata.ownerReferences") or [])


# --- JobSet ----------------------------------------------------------------------------------------------------


def _restarts_counted(status: Mapping[str, Any]) -> int:
    """restartsCountTowardsMax + every Job's jobRestartsCountTowardsMax: what the restart actions hold against
    maxRestarts (jobset_types.go l.416)."""
    per_job = sum(_int(n) for s in status.get("replicatedJobsStatus") or [] if isinstance(s, Mapping)
                  for n in s.get("jobRestartsCountTowardsMax") or [])
    return _int(status.get("restartsCountTowardsMax")) + per_job


def jobset_status(jobset: Mapping[str, Any], kueue: Sequence[Mapping[str, Any]] = ()) -> WorkloadStatus:
    """The state of one JobSet (see the module doc for the sources)."""
    conditions = conditions_of(jobset)
    status = value_at(jobset, "status") or {}
    counts = {str(s.get("name")): s for s in status.get("replicatedJobsStatus") or [] if isinstance(s, Mapping)}
    groups = []
    for rjob in value_at(jobset, "spec.replicatedJobs") or []:
        s = counts.get(str(rjob.get("name")), {})
        groups.append(Group(str(rjob.get("name")), _int(rjob.get("replicas", 1)), _int(s.get("ready")),
                            _int(s.get("active")), _int(s.get("succeeded")), _int(s.get("failed")),
                            _int(s.get("suspended"))))
    restarts = _int(status.get("restarts"))
    total = sum(g.replicas for g in groups)
    ready = sum(min(g.replicas, g.ready + g.succeeded) for g in groups)
    admissions = tuple(admission_of(w) for w in kueue)
    terminal = status.get("terminalState")
    if terminal == COMPLETED or _true(conditions, "Completed"):
        state = COMPLETED
    elif terminal == FAILED or _true(conditions, "Failed"):
        state = FAILED
    elif admissions and any(a.state in QUEUED for a in admissions) and not any(
            a.state == K_ADMITTED for a in admissions):
        # Kueue creates a JobSet suspended and unsuspends it on admission; preempted and requeued it is suspended
        # again: until it is admitted it is queued, not paused
        state = PENDING
    elif _true(conditions, "Suspended") or value_at(jobset, "spec.suspend") is True:
        state = SUSPENDED  # by its owner (`pathways-gke suspend`), or Kueue evicted / deactivated it for good
    elif _true(conditions, "RestartingJobSet"):
        state = RESTARTING  # a failure-policy action is recreating the Jobs
    elif total and ready == total:
        state = RUNNING
    elif any(g.failed for g in groups) or (restarts and _true(conditions, "StartupPolicyCompleted") is None):
        # a child Job failed (the JobSet is about to restart or fail), or a global restart is recreating the Jobs
        state = RESTARTING
    elif _true(conditions, "StartupPolicyCompleted") or restarts:  # (a restart under way was caught above)
        state = DEGRADED  # it had started every Job; some are no longer ready
    else:
        state = PENDING
    max_restarts = value_at(jobset, "spec.failurePolicy.maxRestarts")
    return WorkloadStatus(
        name=str(value_at(jobset, "metadata.name")), namespace=str(value_at(jobset, "metadata.namespace") or ""),
        kind=JOBSET, state=state, restarts=_restarts_counted(status), groups=tuple(groups), ready=ready,
        total=total, condition=_explaining(conditions, admissions, state), admission=admissions,
        # our Pathways JobSets carry no runtime label (render/pathways_jobset.py); JAX ones say "jax"
        runtime=(value_at(jobset, "metadata.labels") or {}).get(RUNTIME_LABEL, "pathways"),
        max_restarts=_int(max_restarts) if max_restarts is not None else 0, all_restarts=restarts,
    )


def _explaining(conditions: Sequence[Condition], admissions: Sequence[Admission], state: str) -> Optional[Condition]:
    """The latest condition; while Kueue holds a workload back (queued, or deactivated / evicted for good), the
    Workload's own reason says why: QuotaReserved False (no quota yet), a pending admission check's message (a
    provisioning request: "Waiting for resources…"), the eviction."""
    held = next((a for a in admissions if a.state in QUEUED), None)
    if state == PENDING and held is not None:
        if held.state == K_PENDING:
            return Condition("QuotaReserved", "False", held.reason, held.message)
        kind = "AdmissionCheck" if held.reason.startswith("admission check ") else "Admitted"
        return Condition(kind, "False", held.reason, held.message)
    gone = next((a for a in admissions if a.state in (K_DEACTIVATED, K_EVICTED)), None)
    if state == SUSPENDED and gone is not None:
        return Condition("Evicted", "True", gone.reason, gone.message)
    return latest(conditions)


# --- LeaderWorkerSet -------------------------------------------------------------------------------------------


def lws_status(lws: Mapping[str, Any], kueue: Sequence[Mapping[str, Any]] = ()) -> WorkloadStatus:
    """The state of one LeaderWorkerSet: Running with every group ready, Degraded with some, else Pending; whether
    the current revision is up everywhere (`rolled_out`) is what `wait --for ready` waits for."""
    conditions = conditions_of(lws)
    desired = value_at(lws, "spec.replicas")
    desired = 1 if desired is None else _int(desired)  # the API's default
    ready = _int(value_at(lws, "status.readyReplicas"))
    created = _int(value_at(lws, "status.replicas"))
    updated = _int(value_at(lws, "status.updatedReplicas"))
    generation, observed = value_at(lws, "metadata.generation"), value_at(lws, "status.observedGeneration")
    stale = isinstance(generation, int) and isinstance(observed, int) and observed < generation
    available = next((c for c in conditions if c.type == "Available"), None)
    rolled_out = (not stale and _true(conditions, "UpdateInProgress") is None and ready >= desired
                  and updated >= desired and (available is None or available.status == "True"))
    admissions = tuple(admission_of(w) for w in kueue)
    if desired == 0:
        state = SUSPENDED  # scaled to zero groups
    elif ready >= desired:
        state = RUNNING  # serving on every group (the update, if one rolls, shows in `rollout`)
    elif ready > 0 or _true(conditions, "UpdateInProgress"):
        state = DEGRADED  # serving on fewer groups than asked for (or rolling an update)
    else:
        state = PENDING
    group = Group("groups", desired, ready=min(ready, desired), active=created)
    return WorkloadStatus(
        name=str(value_at(lws, "metadata.name")), namespace=str(value_at(lws, "metadata.namespace") or ""),
        kind=LWS, state=state, restarts=None, groups=(group,), ready=min(ready, desired), total=desired,
        condition=_explaining(conditions, admissions, state), admission=admissions, runtime="pathways",
        updated=updated, rolled_out=rolled_out or desired == 0,
    )


# --- wait --------------------------------------------------------------------------------------------------------

WAIT_TARGETS = ("completed", "running", "ready", "failed")
REACHED, OTHER_TERMINAL, NOT_YET = "reached", "other-terminal", "not-yet"


def wait_problem(status: WorkloadStatus, target: str) -> Optional[str]:
    """Why `--for target` can never be reached by this kind of workload (None if it can)."""
    if status.kind == LWS and target in ("completed", "failed"):
        return (f"{status.name} is a LeaderWorkerSet (a serving workload), which never completes or fails; "
                "wait for running or ready")
    return None


def verdict(status: WorkloadStatus, target: str) -> str:
    """`wait`'s verdict on one observation: reached, another terminal state, or not yet."""
    if target == "completed" and status.state == COMPLETED or target == "failed" and status.state == FAILED:
        return REACHED
    if status.terminal:
        return OTHER_TERMINAL
    if target == "running" and status.state in (RUNNING, DEGRADED) and status.ready > 0:
        return REACHED  # started: at least one Job or group ready
    if target == "ready" and status.state == RUNNING and status.rolled_out:
        return REACHED  # every Job / group ready (an LWS: on its current revision)
    return NOT_YET


def progress_line(status: WorkloadStatus) -> str:
    return f"{status.name}: {status.state} ({status.summary})"
