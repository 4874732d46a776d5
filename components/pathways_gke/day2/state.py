"""A workload's state in the PathwaysJob vocabulary, derived from the objects the controllers write — pure data.

Sources (the fields read here, and what they mean):
- JobSet `status` (kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go, v0.12.0): conditions of type
  Completed / Failed / Suspended / StartupPolicyInProgress / StartupPolicyCompleted, `terminalState`, `restarts`
  (global restarts), `replicatedJobsStatus[]` {name, ready, active, succeeded, failed, suspended} counted in child
  Jobs; the number of Jobs per replicated job is `spec.replicatedJobs[].replicas`.
- The PathwaysJob operator's own mapping of those conditions (google/pathways-job
  internal/controller/pathwaysjob_controller.go, setPathwaysJobStatusBasedOnJobSetStatus): StartupPolicyInProgress
  -> Pending, StartupPolicyCompleted -> Running, Suspended -> Suspended, Completed / Failed -> the terminal state.
  We read every condition rather than only the last one, and add Restarting (a global restart under way) and
  Degraded (started, but some child Jobs are no longer ready) where the counts say so.
- LeaderWorkerSet `status` (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go, v0.10.0):
  conditions Available / Progressing / UpdateInProgress, `readyReplicas` (groups ready), `replicas` (groups
  created), `updatedReplicas`; the desired groups are `spec.replicas`. An LWS never terminates.
- Kueue Workload (kubernetes-sigs/kueue apis/kueue/v1beta2 workload_types.go): conditions QuotaReserved /
  Admitted / Evicted / Finished, `status.admission` {clusterQueue, podSetAssignments[] {name, flavors, count}}.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence

from ..naming import RUNTIME_LABEL
from ..property_paths import value_at

PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED = "Pending", "Running", "Suspended", "Completed", "Failed"
RESTARTING, DEGRADED = "Restarting", "Degraded"
STATES = (PENDING, RUNNING, SUSPENDED, COMPLETED, FAILED, RESTARTING, DEGRADED)
TERMINAL = (COMPLETED, FAILED)

JOBSET, LWS = "JobSet", "LeaderWorkerSet"


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
class Admission:
    """A Kueue Workload of ours: `state` is Admitted, QuotaReserved (admission checks pending), Pending, Evicted or
    Finished."""

    workload: str
    state: str
    cluster_queue: Optional[str] = None
    flavors: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # pod set -> resource -> flavor
    reason: str = ""
    message: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "state": self.state, "clusterQueue": self.cluster_queue,
                "flavors": {k: dict(v) for k, v in self.flavors.items()}, "reason": self.reason,
                "message": self.message}


@dataclass(frozen=True)
class WorkloadStatus:
    name: str
    namespace: str
    kind: str
    state: str
    restarts: Optional[int]  # None for an LWS: its status keeps no restart count
    groups: tuple[Group, ...]
    ready: int  # child Jobs (JobSet) or groups (LWS) ready or done
    total: int
    condition: Optional[Condition] = None
    admission: tuple[Admission, ...] = ()
    runtime: Optional[str] = None

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL

    @property
    def unit(self) -> str:
        return "groups" if self.kind == LWS else "jobs"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "namespace": self.namespace, "kind": self.kind, "runtime": self.runtime,
            "state": self.state, "restarts": self.restarts, "ready": {"ready": self.ready, "total": self.total,
                                                                       "unit": self.unit},
            "groups": [g.as_json() for g in self.groups],
            "condition": self.condition.as_json() if self.condition else None,
            "kueue": [a.as_json() for a in self.admission],
        }


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


def latest(conditions: Sequence[Condition]) -> Optional[Condition]:
    """The condition that changed last (RFC 3339 times sort as text; on a tie, the later one in the list)."""
    if not conditions:
        return None
    return max(enumerate(conditions), key=lambda ic: (ic[1].time, ic[0]))[1]


# --- Kueue -----------------------------------------------------------------------------------------------------


def admission_of(workload: Mapping[str, Any]) -> Admission:
    conditions = conditions_of(workload)
    name = str(value_at(workload, "metadata.name") or "")
    flavors: dict[str, dict[str, str]] = {}
    for assignment in value_at(workload, "status.admission.podSetAssignments") or []:
        if isinstance(assignment, Mapping):
            flavors[str(assignment.get("name", ""))] = {str(k): str(v) for k, v in
                                                        (assignment.get("flavors") or {}).items()}
    queue = value_at(workload, "status.admission.clusterQueue")
    for kind in ("Finished", "Evicted", "Admitted", "QuotaReserved"):
        c = _true(conditions, kind)
        if c is not None:
            return Admission(name, kind, queue, flavors, c.reason, c.message)
    pending = next((c for c in conditions if c.type == "QuotaReserved"), None)
    return Admission(name, "Pending", queue, flavors, pending.reason if pending else "",
                     pending.message if pending else "waiting for Kueue to reserve quota")


def owned_by(workload: Mapping[str, Any], kind: str, name: str) -> bool:
    return any(isinstance(ref, Mapping) and ref.get("kind") == kind and ref.get("name") == name
               for ref in value_at(workload, "metadata.ownerReferences") or [])


# --- JobSet ----------------------------------------------------------------------------------------------------


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
    elif _true(conditions, "Suspended") or value_at(jobset, "spec.suspend") is True:
        # Kueue creates a JobSet suspended and unsuspends it on admission: until then it is queued, not paused
        queued = admissions and all(a.state in ("Pending", "QuotaReserved") for a in admissions)
        state = PENDING if queued else SUSPENDED
    elif total and ready == total:
        state = RUNNING
    elif any(g.failed for g in groups) or (restarts and _true(conditions, "StartupPolicyCompleted") is None):
        # a child Job failed (the JobSet is about to restart or fail), or a global restart is recreating the Jobs
        state = RESTARTING
    elif _true(conditions, "StartupPolicyCompleted") or restarts:  # (a restart under way was caught above)
        state = DEGRADED  # it had started every Job; some are no longer ready
    else:
        state = PENDING
    return WorkloadStatus(
        name=str(value_at(jobset, "metadata.name")), namespace=str(value_at(jobset, "metadata.namespace") or ""),
        kind=JOBSET, state=state, restarts=restarts, groups=tuple(groups), ready=ready, total=total,
        condition=_explaining(conditions, admissions, state), admission=admissions,
        # our Pathways JobSets carry no runtime label (render/pathways_jobset.py); JAX ones say "jax"
        runtime=(value_at(jobset, "metadata.labels") or {}).get(RUNTIME_LABEL, "pathways"),
    )


def _explaining(conditions: Sequence[Condition], admissions: Sequence[Admission], state: str) -> Optional[Condition]:
    """The latest condition; while Kueue holds a pending workload back, the Workload's own reason says why
    (QuotaReserved False: no quota yet; Admitted False: quota reserved, admission checks such as a provisioning
    request still pending)."""
    held = next((a for a in admissions if a.state in ("Pending", "QuotaReserved")), None)
    if state == PENDING and held is not None:
        kind = "QuotaReserved" if held.state == "Pending" else "Admitted"
        return Condition(kind, "False", held.reason, held.message)
    return latest(conditions)


# --- LeaderWorkerSet -------------------------------------------------------------------------------------------


def lws_status(lws: Mapping[str, Any], kueue: Sequence[Mapping[str, Any]] = ()) -> WorkloadStatus:
    """The state of one LeaderWorkerSet: Running with every group ready, Degraded with some, else Pending."""
    conditions = conditions_of(lws)
    desired = value_at(lws, "spec.replicas")
    desired = 1 if desired is None else _int(desired)  # the API's default
    ready = _int(value_at(lws, "status.readyReplicas"))
    created = _int(value_at(lws, "status.replicas"))
    admissions = tuple(admission_of(w) for w in kueue)
    if desired == 0:
        state = SUSPENDED  # scaled to zero groups
    elif ready >= desired:
        state = RUNNING
    elif ready > 0 or _true(conditions, "UpdateInProgress"):
        state = DEGRADED  # serving on fewer groups than asked for (or rolling an update)
    else:
        state = PENDING
    group = Group("groups", desired, ready=min(ready, desired), active=created)
    return WorkloadStatus(
        name=str(value_at(lws, "metadata.name")), namespace=str(value_at(lws, "metadata.namespace") or ""),
        kind=LWS, state=state, restarts=None, groups=(group,), ready=min(ready, desired), total=desired,
        condition=_explaining(conditions, admissions, state), admission=admissions, runtime="pathways",
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
    if target == "ready" and status.state == RUNNING:
        return REACHED  # every Job / group ready
    return NOT_YET


def progress_line(status: WorkloadStatus) -> str:
    return f"{status.name}: {status.state} ({status.ready}/{status.total} {status.unit} ready)"
