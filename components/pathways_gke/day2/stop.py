"""`pathways-gke suspend | resume`: the change each kind of workload takes to stop and start again — pure data.

- A JobSet Kueue manages (it has a Kueue Workload): the Workload's `spec.active` (kueue apis/kueue/v1beta2
  workload_types.go l.59-68: false evicts a running workload and keeps it out of the queue; true puts it back), the
  way `kueuectl stop workload` / `resume workload` do it (kueue site docs reference/kubectl-kueue). Suspending the
  JobSet itself would fight Kueue, which owns `spec.suspend` of the jobs it admits.
- Any other JobSet: `spec.suspend` (jobset api/jobset/v1alpha2/jobset_types.go JobSetSpec.suspend: the controller
  suspends every child Job and sets the Suspended condition; false resumes them, pkg/controllers/jobset_controller.go
  setJobSetResumedCondition).
- A LeaderWorkerSet has no suspend field (lws api/leaderworkerset/v1/leaderworkerset_types.go v0.10.0): the honest
  stop is zero groups. `suspend` sets `spec.replicas: 0` and records the count it had in the annotation
  naming.SUSPENDED_REPLICAS_ANNOTATION; `resume` sets it back and drops the annotation.

What a later `pulumi up` does (docs/day2.md "Suspend and resume"): the program's JobSet never sets `spec.suspend`
and the Kueue Workload is not a Pulumi resource, so an up that leaves the workload alone keeps it stopped, and one
that changes the JobSet's spec replaces it (apply_rules.JOBSET_REPLACE_ON_CHANGES): a new run, not suspended. The
program's LWS does set `spec.replicas`; pulumi-kubernetes applies without force (provider/pkg/await/await.go
ssaUpdate, patchForce), so while it is suspended an up that changes the LWS stops with a Server-Side Apply conflict
on `.spec.replicas` naming field manager `pathways-gke` instead of silently starting it; after `resume` the value is
the program's again, and the next apply shares the field without a conflict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from .. import naming
from ..property_paths import value_at
from .state import JOBSET, LWS


JOBSET_LATER = ("a `pulumi up` that leaves this workload alone keeps it suspended; one that changes it replaces "
                "the JobSet: a new run, not suspended")


class StopError(ValueError):
    """The workload cannot be suspended or resumed that way (bad input: exit 2)."""


@dataclass(frozen=True)
class Change:
    kind: str  # JobSet | LeaderWorkerSet | Workload
    name: str
    body: Mapping[str, Any]  # a JSON merge patch
    what: str  # for the message
    later: str = ""  # what a later `pulumi up` does with it (printed on suspend)


def change_for(kind: str, obj: Mapping[str, Any], kueue: Sequence[Mapping[str, Any]], suspend: bool) -> Optional[Change]:
    """The merge patch that suspends (or resumes) this workload, or None when it already is."""
    name = str(value_at(obj, "metadata.name"))
    if kind == JOBSET:
        if kueue:
            workload = str(value_at(kueue[0], "metadata.name"))
            active = value_at(kueue[0], "spec.active")
            if (active is False) == suspend:
                return None
            return Change("Workload", workload, {"spec": {"active": not suspend}},
                          f"Kueue Workload {workload} spec.active={str(not suspend).lower()}", JOBSET_LATER)
        if (value_at(obj, "spec.suspend") is True) == suspend:
            return None
        return Change(JOBSET, name, {"spec": {"suspend": suspend}}, f"JobSet {name} spec.suspend={str(suspend).lower()}",
                      JOBSET_LATER)
    if kind == LWS:
        replicas = value_at(obj, "spec.replicas")
        replicas = 1 if replicas is None else int(replicas)
        recorded = (value_at(obj, "metadata.annotations") or {}).get(naming.SUSPENDED_REPLICAS_ANNOTATION)
        if suspend:
            if replicas == 0:
                return None
            return Change(LWS, name, {"metadata": {"annotations": {naming.SUSPENDED_REPLICAS_ANNOTATION: str(replicas)}},
                                      "spec": {"replicas": 0}},
                          f"LeaderWorkerSet {name} spec.replicas 0 (was {replicas}, recorded in "
                          f"{naming.SUSPENDED_REPLICAS_ANNOTATION})",
                          "a `pulumi up` that leaves this LeaderWorkerSet alone keeps it at 0; one that changes it "
                          "stops with a server-side apply conflict on .spec.replicas (field manager pathways-gke): "
                          "`pathways-gke resume` first")
        if recorded is None:
            if replicas > 0:
                return None
            raise StopError(f"LeaderWorkerSet {name} has 0 groups and no {naming.SUSPENDED_REPLICAS_ANNOTATION} "
                            "annotation (it was not suspended by pathways-gke): `pulumi up` sets the stack's count")
        if not str(recorded).isdigit() or int(recorded) < 1:
            raise StopError(f"LeaderWorkerSet {name}: annotation {naming.SUSPENDED_REPLICAS_ANNOTATION}="
                            f"{recorded!r} is not a group count; `pulumi up` sets the stack's count")
        return Change(LWS, name, {"metadata": {"annotations": {naming.SUSPENDED_REPLICAS_ANNOTATION: None}},
                                  "spec": {"replicas": int(recorded)}},
                      f"LeaderWorkerSet {name} spec.replicas {recorded}")
    raise StopError(f"{kind} {name}: not a JobSet or LeaderWorkerSet")
