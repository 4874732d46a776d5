"""The PriorityClass ladder XPK (`xpk cluster create-pathways`) and Cluster Toolkit
(`kueue-configuration-pathways.yaml.tftpl`) create: very-low 100 … very-high 1000 (docs/jobset-and-kueue.md)."""

from __future__ import annotations

from typing import Any

from ..naming import MANAGED_BY_LABELS, PRIORITY_LADDER, PRIORITY_NAMES

__all__ = ["PRIORITY_LADDER", "PRIORITY_NAMES", "priority_class"]

def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name, "labels": dict(MANAGED_BY_LABELS)},
        "value": value,
        "globalDefault": False,
        "preemptionPolicy": "PreemptLowerPriority",
        "description": f"pathways-gke priority ladder: {name} ({value})",
    }


def priority_classes() -> list[dict[str, Any]]:
    return [priority_class(name, value) for name, value in PRIORITY_LADDER]
