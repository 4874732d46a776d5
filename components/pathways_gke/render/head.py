"""The pod that coordinates a run stays put and alone: one builder every head-like pod uses.

A Pathways head (and a serving leader) listens on host ports and holds the run's state; two on one node
collide on ports, and an autoscaler scale-down that evicts it restarts the whole run. JobSet's
`exclusive-topology` annotation keeps apart only pods whose priority lets them preempt each other and
native-sidecar host ports were ignored by older schedulers, so the separation is stated explicitly:

- a head-only pod label, and a *required* pod anti-affinity on it per node (`kubernetes.io/hostname`),
  across all namespaces, with no priority term;
- `cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`, so the cluster autoscaler never picks its node
  for scale-down (https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md).

Pure data, no Pulumi import.
"""

from __future__ import annotations

from typing import Any

from .. import naming

SAFE_TO_EVICT_ANNOTATION = naming.SAFE_TO_EVICT_ANNOTATION
HEAD_POD_LABEL = naming.HEAD_POD_LABEL


def never_evict(metadata: dict[str, Any]) -> dict[str, Any]:
    """`metadata` with the autoscaler's safe-to-evict "false" annotation added (a new dict)."""
    return {**metadata, "annotations": dict(sorted({**(metadata.get("annotations") or {}),
                                                    SAFE_TO_EVICT_ANNOTATION: "false"}.items()))}


def head_anti_affinity() -> dict[str, Any]:
    """Required: no other head pod (any namespace, any priority) on the same node."""
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {HEAD_POD_LABEL: "true"}},
        "namespaceSelector": {},
        "topologyKey": naming.HOSTNAME_LABEL,
    }]}}


def guard_head(metadata: dict[str, Any], spec: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A head pod template's (metadata, spec) with the head label, safe-to-evict "false" and the anti-affinity."""
    meta = never_evict(metadata)
    meta["labels"] = dict(sorted({**(meta.get("labels") or {}), HEAD_POD_LABEL: "true"}.items()))
    guarded = dict(spec)
    if "affinity" in guarded:
        raise ValueError("a head pod's affinity is owned by guard_head")
    guarded["affinity"] = head_anti_affinity()
    return meta, guarded
