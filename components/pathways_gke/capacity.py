"""TPU capacity modes, and what each one means for the pods that run on such nodes.

One table, read by both JobSet builders and the Kueue flavors, so a worker pod and the flavor that
admits it can never disagree about a mode's taint or node selector.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, get_args

from .naming import FLEX_START_LABEL, QUEUED_LABEL, SPOT_LABEL, TPU_RESOURCE

Capacity = Literal["on-demand", "spot", "reservation", "flex-start", "queued"]
CAPACITIES: tuple[str, ...] = get_args(Capacity)

# Modes whose slices GKE brings up from zero on demand, with flex-start VMs (GKE pairs queued provisioning with
# flex-start): no fixed node count.
PROVISIONED_ON_DEMAND: frozenset[str] = frozenset({"flex-start", "queued"})
# Modes that must not consume a reservation (GKE: reservation affinity NO_RESERVATION).
NO_RESERVATION: frozenset[str] = frozenset({"spot", "flex-start", "queued"})


def _exists(key: str) -> dict[str, str]:
    # operator Exists: whatever value GKE gives the taint (it differs between GKE versions and modes)
    return {"key": key, "operator": "Exists", "effect": "NoSchedule"}


TPU_TOLERATION = _exists(TPU_RESOURCE)  # GKE taints every TPU node with google.com/tpu


@dataclass(frozen=True)
class CapacityRule:
    """Extra tolerations and node selector a pod needs on a TPU pool of one capacity mode."""

    tolerations: tuple[dict[str, str], ...] = ()
    node_selector: dict[str, str] = field(default_factory=dict)


# GKE docs: Spot VMs carry cloud.google.com/gke-spot (and may be tainted with it); flex-start nodes
# cloud.google.com/gke-flex-start; queued-provisioning nodes are tainted cloud.google.com/gke-queued and only
# used by pods that select them (https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest).
CAPACITY_RULES: dict[str, CapacityRule] = {
    "on-demand": CapacityRule(),
    "reservation": CapacityRule(),
    "spot": CapacityRule(tolerations=(_exists(SPOT_LABEL),)),
    "flex-start": CapacityRule(tolerations=(_exists(FLEX_START_LABEL),)),
    "queued": CapacityRule(tolerations=(_exists(QUEUED_LABEL),), node_selector={QUEUED_LABEL: "true"}),
}


def tpu_tolerations(capacity: str) -> list[dict[str, str]]:
    """Tolerations of a pod on a TPU pool of this capacity mode (fresh dicts: callers may mutate them)."""
    return [dict(TPU_TOLERATION), *(dict(t) for t in CAPACITY_RULES[capacity].tolerations)]


def capacity_node_selector(capacity: str) -> dict[str, str]:
    return dict(CAPACITY_RULES[capacity].node_selector)
