"""`cluster.autoprovisioning`: GKE node auto-provisioning (NAP), i.e. the cluster's `clusterAutoscaling`.

What GKE requires and what the peers send (XPK 1.16 core/nap.py `create_autoprovisioning_config`; Cluster Toolkit
modules/scheduler/gke-cluster `cluster_autoscaling`; GKE "Configure node auto-provisioning" and "TPUs with node
auto-provisioning"): resource limits for `cpu` and `memory` ALWAYS (GKE rejects auto-provisioning without them), plus
one limit per TPU accelerator whose resource type is the GKE accelerator name (`tpu-v6e-slice`, the value of the
node label cloud.google.com/gke-tpu-accelerator), in chips; the nodes it provisions run as
`autoProvisioningDefaults.serviceAccount` with its scopes (unset, GKE uses the Compute Engine default account,
which this stack never gives nodes); `autoProvisioningLocations` are the zones it may create pools in.

What an auto-provisioned TPU workload selects, and what Kueue quota it counts (decided here, docs/capacity-and-cost.md):
NAP creates a TPU pool for a pending pod that selects a TPU shape (accelerator + topology) no existing pool offers.
Workers on a declared pool group select that group (or, in a fallback list, the admitted flavor's labels), so NAP
never provisions for them while their pools exist: auto-provisioning is a ceiling on what GKE may add, not a
capacity a workload names. Kueue quota stays the declared groups' chips; NAP-provisioned chips are counted by no
flavor, so tpuChipsMax is never quota.
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator

from ..catalog import GENERATIONS
from .base import Model, fail
from .types import Zone

# XPK 1.16 core/nap.py: cpu 1..1,000,000 and memory 1..10,000,000 (GB) when the user gives none ("CPU Limits and
# Memory Limits are for user jobs only"); the same defaults here, so an unset cpuMax / memoryMaxGb does not cap.
DEFAULT_CPU_MAX = 1_000_000
DEFAULT_MEMORY_MAX_GB = 10_000_000


def accelerator_resource_type(key: str) -> Optional[str]:
    """The GKE resource type of a tpuChipsMax key: a generation (v6e) or its accelerator name (tpu-v6e-slice)."""
    for gen in GENERATIONS.values():
        if key == gen.accelerator_label or key in gen.aliases or key == gen.name:
            return gen.accelerator_label
    return None


class AutoprovisioningConfig(Model):
    """Node auto-provisioning: GKE creates node pools for pending pods within these limits."""

    enabled: bool = False
    """Turn node auto-provisioning on (the cluster's clusterAutoscaling.enabled). Default: false."""
    tpu_chips_max: dict[str, int] = Field(default_factory=dict)
    """Most TPU chips GKE may provision, per accelerator: a generation (v6e) or GKE accelerator name
    (tpu-v6e-slice) -> chips, e.g. {v6e: 64}."""
    cpu_max: Optional[int] = Field(default=None, ge=1)
    """Most vCPUs across the cluster's auto-provisioned and autoscaled nodes; default 1000000 (as XPK)."""
    memory_max_gb: Optional[int] = Field(default=None, ge=1)
    """Most memory in GB across those nodes; default 10000000 (as XPK)."""
    locations: Optional[list[Zone]] = None
    """Zones GKE may create auto-provisioned pools in; default: the zones of the TPU pool groups."""

    @field_validator("tpu_chips_max")
    @classmethod
    def _accelerators(cls, value: dict[str, int]) -> dict[str, int]:
        for key, chips in value.items():
            if accelerator_resource_type(key) is None:
                allowed = ", ".join(f"{g.name} ({g.accelerator_label})" for g in GENERATIONS.values())
                raise fail("accelerator", f"'{key}' is not a TPU accelerator; allowed: {allowed}")
            if not isinstance(chips, int) or chips < 1:
                raise fail("accelerator", f"{key}: {chips!r} chips; give a positive whole number of chips")
        return value

    def resource_limits(self) -> list[dict[str, object]]:
        """clusterAutoscaling.resourceLimits: cpu and memory always, then one per TPU accelerator (chips)."""
        limits: list[dict[str, object]] = [
            {"resource_type": "cpu", "minimum": 0, "maximum": self.cpu_max or DEFAULT_CPU_MAX},
            {"resource_type": "memory", "minimum": 0, "maximum": self.memory_max_gb or DEFAULT_MEMORY_MAX_GB},
        ]
        by_type: dict[str, int] = {}
        for key, chips in self.tpu_chips_max.items():
            resource_type = accelerator_resource_type(key)
            if resource_type is not None:  # always: the field validator refuses any other key
                by_type[resource_type] = chips
        limits += [{"resource_type": t, "minimum": 0, "maximum": by_type[t]} for t in sorted(by_type)]
        return limits
