"""Ordered fallback (`workloads[].tpuPools: [g1, g2, ...]`): which pool groups may stand in for each other, and the
order of the Kueue ClusterQueue's TPU flavors that carries every workload's preference.

Kueue semantics: within a resource group Kueue tries the flavors in the order the ClusterQueue lists them ("The order
of flavors matters: list ResourceFlavors from the most preferred to the least preferred", kueue.sigs.k8s.io
docs/tasks/manage/setup_concurrent_admission) and admits a pod set to the first whose nodeLabels agree with the pods'
node selector and whose quota fits; on admission it injects that flavor's nodeLabels and tolerations into the pods
(Kueue v0.5.0 release notes: "Kueue injects these tolerations to the jobs that are assigned to the flavor"). So the
workers select the shape only (accelerator, topology) and the flavor order is the fallback order; the
ProvisioningRequest admission check applies only to the queued flavors (admissionChecksStrategy.onFlavors, validated
against the v0.17.1 and v0.19.2 CRDs; Cluster Toolkit's DWS example pairs the check with the queued flavor). GKE's
own tutorial on flavor fallback to DWS was not among the stored pages read here.

Because the workers' selector matches every flavor of their shape, a group of the same shape that the list does not
name could admit them too: that is refused, as are groups of another shape or region, fallback without Kueue, and
two lists that order the same groups differently (one ClusterQueue has one order).
"""

from __future__ import annotations

from typing import Optional

from ..errors import Problem
from .model import StackConfig
from .tpu import TpuPoolConfig
from .types import region_of


def _shape_key(pool: TpuPoolConfig) -> tuple[str, str, str]:
    shape = pool.shape
    return shape.generation, shape.topology, shape.machine_type


def tpu_flavor_order(stack: StackConfig) -> list[TpuPoolConfig]:
    """The TPU pool groups in ClusterQueue order: stack order, except that the groups of every fallback list come
    in that list's order (at the place of the list's first group). Consistency is checked by `fallback_problems`;
    on a conflict the first list read wins."""
    names = [pool.name for pool in stack.tpu_pools]
    lists = [w.tpu_pools for w in stack.workloads if w.tpu_pools]
    for groups in lists:
        present = [g for g in groups if g in names]
        if len(present) < 2:
            continue
        slots = sorted(names.index(g) for g in present)
        for slot, group in zip(slots, present):
            names[slot] = group
    by_name = {pool.name: pool for pool in stack.tpu_pools}
    return [by_name[name] for name in names]


def fallback_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    pools = {pool.name: pool for pool in stack.tpu_pools}
    before: dict[tuple[str, str], int] = {}  # (a, b) -> the workload whose list puts a before b
    for i, workload in enumerate(stack.workloads):
        if not workload.tpu_pools:
            continue
        path = f"workloads[{i}].tpuPools"
        if not stack.kueue.enabled:
            out.append(Problem(path, "is an ordered fallback, which is the order of Kueue's ClusterQueue flavors; "
                               "kueue.enabled is false: enable Kueue, or name one group with tpuPool",
                               ", ".join(workload.tpu_pools)))
        groups = [pools[g] for g in workload.tpu_pools if g in pools]  # unknown names: reported by workload_problems
        if not groups or any(g.topology is None for g in groups):
            continue
        first = groups[0]
        for j, name in enumerate(workload.tpu_pools):
            pool = pools.get(name)
            if pool is None or pool is first:
                continue
            out += _mismatch(first, pool, f"{path}[{j}]")
        listed = set(workload.tpu_pools)
        same_shape = [p.name for p in stack.tpu_pools if p.name not in listed and _shape_key(p) == _shape_key(first)
                      and region_of(p.zone) == region_of(first.zone)]
        if same_shape and stack.kueue.enabled:
            out.append(Problem(path, f"leaves out group(s) {', '.join(same_shape)} of the same shape: the workers "
                               "select the shape only, so Kueue could admit them there too; add them to the list "
                               "(in the order you want) or give them another shape", ", ".join(workload.tpu_pools)))
        order = [g.name for g in groups]
        for a_index, a in enumerate(order):
            for b in order[a_index + 1:]:
                other = before.get((b, a))
                if other is not None:
                    out.append(Problem(path, f"orders {a} before {b}, but workloads[{other}].tpuPools orders {b} "
                                       f"before {a}; one ClusterQueue has one flavor order: make the lists agree",
                                       ", ".join(workload.tpu_pools)))
                before.setdefault((a, b), i)
    return out


def _mismatch(first: TpuPoolConfig, pool: TpuPoolConfig, path: str) -> list[Problem]:
    """A fallback group must be interchangeable with the first: same generation, topology, machine type, region."""
    reasons: list[str] = []
    a, b = first.shape, pool.shape
    for key, mine, theirs in (("generation", a.generation, b.generation), ("topology", a.topology, b.topology),
                              ("machine type", a.machine_type, b.machine_type),
                              ("region", region_of(first.zone), region_of(pool.zone))):
        if mine != theirs:
            reasons.append(f"{key} {theirs} (the first group '{first.name}' has {mine})")
    if not reasons:
        return []
    return [Problem(path, "cannot stand in for the first group: its " + "; its ".join(reasons) + ". A fallback "
                    "list's groups share one shape and region: the workers' shape selector and slice count are the "
                    "first group's", pool.name)]


def fallback_groups_of(stack: StackConfig, name: str) -> Optional[list[str]]:
    """The fallback list a workload names, if any (for the cluster's JobSet dependencies)."""
    for workload in stack.workloads:
        if workload.name == name and workload.tpu_pools:
            return list(workload.tpu_pools)
    return None
