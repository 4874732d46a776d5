"""The LeaderWorkerSet admission webhook's rules (and what LWS derives from a spec), mirrored as a pure function
so rendered LeaderWorkerSets are checked offline beside the CRD schema.

Rules follow kubernetes-sigs/lws `pkg/webhooks/leaderworkerset_webhook.go` (`generalValidate`, `ValidateUpdate`)
at v0.4.0 and v0.10.0 and the name limits of generated objects (worker StatefulSet `<lws>-<g>` <= 52 characters,
lws#410; pod names `<lws>-<g>-<w>` <= 63). Pod templates get the core Pod rules of jobset_rules, plus one rule
the pod network makes real: a port is declared once per pod (all containers share one network namespace).
"""

from __future__ import annotations

import re
from typing import Any, Optional

from pathways_gke.releases import version_key
from tests.support.jobset_rules import DNS_1035, pod_rule_errors

INT32 = 2**31 - 1
PERCENT = re.compile(r"^(100|[1-9]?[0-9])%$")
SUBGROUP_EXCLUSIVE = "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology"
EXCLUSIVE = "leaderworkerset.sigs.k8s.io/exclusive-topology"
NODE_POOL = "cloud.google.com/gke-nodepool"
TPU = "google.com/tpu"


def _int_or_percent(value: Any) -> Optional[str]:
    if isinstance(value, int):
        return None if value >= 0 else "must be >= 0"
    if isinstance(value, str) and PERCENT.match(value):
        return None
    return "must be a non-negative int or a percentage <= 100%"


def lws_rule_errors(lws: dict[str, Any], version: str = "v0.10.0") -> list[str]:
    errors: list[str] = []
    err = errors.append
    name = lws["metadata"]["name"]
    annotations = lws["metadata"].get("annotations") or {}
    spec = lws["spec"]
    replicas = spec.get("replicas", 1)
    template = spec["leaderWorkerTemplate"]
    size = template.get("size", 1)

    if version_key(version) >= (0, 5, 0) and (not DNS_1035.match(name) or len(name) > 63):
        err(f"metadata.name {name!r} is not a DNS-1035 label")
    if replicas < 0 or (version_key(version) >= (0, 10, 0) and replicas > 1_000_000):
        err("replicas out of range")
    if size < 1:
        err("leaderWorkerTemplate.size must be >= 1")
    if replicas * size > INT32:
        err("replicas x size exceeds int32")

    rolling = (spec.get("rolloutStrategy") or {}).get("rollingUpdateConfiguration") or {}
    unavailable, surge = rolling.get("maxUnavailable", 1), rolling.get("maxSurge", 0)
    for key, value in (("maxUnavailable", unavailable), ("maxSurge", surge)):
        problem = _int_or_percent(value)
        if problem:
            err(f"rollingUpdateConfiguration.{key} {problem}")
    if unavailable in (0, "0%") and surge in (0, "0%") and replicas != 0:
        err("maxUnavailable and maxSurge cannot both be 0")

    policy = template.get("subGroupPolicy")
    if policy is not None:
        sub = policy.get("subGroupSize", 0)
        kind = policy.get("subGroupPolicyType", "LeaderWorker")
        if not 1 <= sub <= size:
            err("subGroupSize must be between 1 and size")
        elif size % sub and (size - 1) % sub:
            err("size or size-1 must be divisible by subGroupSize")
        if kind == "LeaderExcluded" and (size - 1) % sub:
            err("LeaderExcluded needs (size-1) divisible by subGroupSize")
        if kind == "LeaderExcluded" and version_key(version) < (0, 6, 0):
            err("subGroupPolicyType LeaderExcluded needs LWS v0.6.0")
    elif SUBGROUP_EXCLUSIVE in annotations:
        err("subgroup-exclusive-topology needs a subGroupPolicy")

    # generated names: worker StatefulSet <lws>-<g> (its pods' controller-revision-hash label), pods <lws>-<g>-<w>
    last_group = replicas + (surge if isinstance(surge, int) else 0) - 1
    sts = f"{name}-{max(last_group, 0)}"
    if len(sts) > 52:
        err(f"worker StatefulSet {sts!r} is longer than 52 characters")
    pod = f"{sts}-{max(size - 1, 0)}"
    if len(pod) > 63:
        err(f"worker pod name {pod!r} is longer than 63 characters")

    # Pathways placement: a CPU leader must never pin the group with plain exclusive placement on node pools
    leader = template.get("leaderTemplate") or template["workerTemplate"]
    leader_pool = (leader["spec"].get("nodeSelector") or {}).get(NODE_POOL)
    if leader_pool is not None and annotations.get(EXCLUSIVE) == NODE_POOL:
        err("a leader pinned to a node pool with exclusive-topology on gke-nodepool pins the workers there too")
    if leader_pool is not None and policy is not None and policy.get("subGroupPolicyType") != "LeaderExcluded":
        err("a leader on its own node pool needs LeaderExcluded subgroups")

    for which in ("leaderTemplate", "workerTemplate"):
        pod_template = template.get(which)
        if pod_template is None:
            continue
        pod_spec = pod_template["spec"]
        errors.extend(f"{which}.spec: {e}" for e in pod_rule_errors(pod_spec))
        if pod_spec.get("restartPolicy", "Always") != "Always":
            err(f"{which}: StatefulSet pods must have restartPolicy Always")
        ports = [(p["containerPort"], p.get("protocol", "TCP"))
                 for c in pod_spec.get("containers") or [] for p in c.get("ports") or []]
        if len(set(ports)) != len(ports):
            err(f"{which}: a port is declared by two containers of one pod: {sorted(ports)}")
    return errors


def group_pods(lws: dict[str, Any], group: int = 0) -> list[dict[str, Any]]:
    """The pods LWS creates for one group, with the labels its pod webhook adds (for selector tests)."""
    name = lws["metadata"]["name"]
    template = lws["spec"]["leaderWorkerTemplate"]
    size = template.get("size", 1)
    out = []
    for w in range(size):
        source = template.get("leaderTemplate") if w == 0 else None
        source = source or template["workerTemplate"]
        labels = dict((source.get("metadata") or {}).get("labels") or {})
        labels.update({"leaderworkerset.sigs.k8s.io/name": name, "leaderworkerset.sigs.k8s.io/worker-index": str(w),
                       "leaderworkerset.sigs.k8s.io/group-index": str(group)})
        out.append({"name": f"{name}-{group}" + (f"-{w}" if w else ""), "labels": labels, "spec": source["spec"]})
    return out


def tpu_vms(pods: list[dict[str, Any]]) -> int:
    """Pods that request TPU chips (one per TPU VM)."""
    return sum(1 for p in pods if any(TPU in ((c.get("resources") or {}).get("limits") or {})
                                      for c in p["spec"].get("containers") or []))
