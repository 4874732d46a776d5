"""The PriorityClass ladder XPK and Cluster Toolkit create (JOBSET_INSTALL.md §7.3, §7.4)."""

from __future__ import annotations

from typing import Any

# name -> value; the same five names and values as XPK/CTK so their job specs keep working.
PRIORITY_LADDER: tuple[tuple[str, int], ...] = (
    ("very-low", 100),
    ("low", 250),
    ("medium", 500),
    ("high", 750),
    ("very-high", 1000),
)
PRIORITY_NAMES = tuple(name for name, _ in PRIORITY_LADDER)


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name, "labels": {"app.kubernetes.io/managed-by": "pathways-gke"}},
        "value": value,
        "globalDefault": False,
        "preemptionPolicy": "PreemptLowerPriority",
        "description": f"pathways-gke priority ladder: {name} ({value})",
    }


def priority_classes() -> list[dict[str, Any]]:
    return [priority_class(name, value) for name, value in PRIORITY_LADDER]
