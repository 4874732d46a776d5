"""How a JobSet workload restarts: `workloads[].restart` and `workloads[].restartOnExitCodes`.

Kept in its own module so the restart surface is one separable model (JobSet failure policy, docs/resilience.md).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_validator

from ..releases import IN_PLACE_RESTART_REASON
from .base import Model, fail

RestartStrategy = Literal["Recreate", "BlockingRecreate"]
RESTART_STRATEGIES: tuple[str, ...] = ("Recreate", "BlockingRecreate")


class RestartSettings(Model):
    """How the JobSet restarts after a failure (its `failurePolicy`; restarts count against maxRestarts)."""

    strategy: RestartStrategy = "Recreate"
    """Recreate: delete and recreate the failed Jobs' peers at once; BlockingRecreate: create the new Jobs only
    once every old one is gone (no pod of the old run overlaps the new one; JobSet >= v0.7). Default: "Recreate"."""
    per_slice: bool = False
    """Restart only the failed slice's Job (a `RestartJob` failure-policy rule on the worker replicated job)
    instead of the whole JobSet, within maxRestarts: JobSet >= v0.12.0, whose alpha gate RestartJob pathways-gke
    turns on in the controller's configuration. Pathways only. Default: false."""

    @field_validator("strategy", mode="before")
    @classmethod
    def _in_place(cls, value: Any) -> Any:
        if value == "InPlaceRestart":
            raise fail("strategy", f"is refused: {IN_PLACE_RESTART_REASON}")
        return value


def check_exit_codes(codes: list[int]) -> list[int]:
    """Kubernetes' Job validation of `podFailurePolicy.rules[].onExitCodes.values`: at most 255 unique values, and
    the NotIn operator reads 0 as success (Cluster Toolkit drops 0 with a warning; we refuse it)."""
    for code in codes:
        if code == 0:
            raise fail("restart_on_exit_codes", "lists 0, the success exit code; list the failure codes (1-255) "
                       "after which the run restarts")
        if not 1 <= code <= 255:
            raise fail("restart_on_exit_codes", f"lists {code}; a container exit code is 1-255")
    if len(set(codes)) != len(codes):
        raise fail("restart_on_exit_codes", "lists an exit code twice")
    return sorted(codes)
