"""The cluster-side facts a standalone PathwaysWorkload is given (namespace, pools, TPU shape, queue), validated
with the same catalog and messages as the stack config, and turned into a WorkloadTarget."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..capacity import Capacity
from ..catalog import CatalogError, SliceShape, parse_shorthand, resolve
from ..config.base import fail, problems_from
from ..errors import Problem
from ..config.target import WorkloadTarget
from ..config.types import KubernetesName, LabelValue, Namespace, NodePoolName


class PathwaysPlacement(BaseModel):
    """Where a Pathways workload runs (snake_case: the component's arg names)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)

    tpu_type: str
    tpu_topology: Optional[str] = None
    tpu_machine_type: Optional[str] = None
    slices: int = Field(ge=1, le=256)
    namespace: Namespace = "default"
    cpu_pool: NodePoolName = "cpu-np"
    cpu_machine_type: Optional[str] = None
    tpu_group: Optional[LabelValue] = None
    capacity: Capacity = "on-demand"
    placement_policy: Optional[LabelValue] = None
    queue_name: Optional[KubernetesName] = None

    @model_validator(mode="after")
    def _shape(self) -> "PathwaysPlacement":
        self.shape  # noqa: B018 - raises a field-named error when the catalog rejects the combination
        return self

    @property
    def shape(self) -> SliceShape:
        try:
            generation, implied = parse_shorthand(self.tpu_type)
            topology = self.tpu_topology or implied
            if topology is None:
                raise CatalogError("topology", None, "is required (or use a shorthand tpu_type such as v6e-16)")
            if implied is not None and self.tpu_topology is not None and self.tpu_topology != implied:
                raise CatalogError("topology", self.tpu_topology,
                                   f"conflicts with tpu_type {self.tpu_type!r}, which means {implied}")
            return resolve(generation, topology, self.tpu_machine_type)
        except CatalogError as exc:
            field = {"type": "tpu_type", "topology": "tpu_topology", "machineType": "tpu_machine_type"}[exc.field]
            raise fail("catalog", str(exc), field=field) from None


def placement_problems(values: Mapping[str, Any]) -> tuple[Optional[PathwaysPlacement], list[Problem]]:
    try:
        return PathwaysPlacement.model_validate(dict(values)), []
    except ValidationError as exc:
        return None, problems_from(exc, PathwaysPlacement, [])


def target_from_placement(placement: PathwaysPlacement) -> WorkloadTarget:
    return WorkloadTarget(
        namespace=placement.namespace,
        cpu_pool=placement.cpu_pool,
        tpu_group=placement.tpu_group,
        shape=placement.shape,
        slices=placement.slices,
        capacity=placement.capacity,
        placement_policy=placement.placement_policy,
        queue_name=placement.queue_name,
    )
