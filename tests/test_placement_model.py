"""The one placement model (config/placement.py): what PathwaysCluster hands a workload component is exactly what
the component rebuilds its target from, for every workload of every shipped stack — nothing is lost or added on
the way (model -> args -> model)."""

from __future__ import annotations

import dataclasses

import pytest

from pathways_gke.config.placement import Placement, placement_args, target_from_placement
from pathways_gke.config.target import WorkloadTarget, target_for

from .support.stacks import parsed

SHIPPED = ("dev", "prod", "jax", "serve", "jetstream")
CASES = [(stack, w.name) for stack in SHIPPED for w in parsed(stack).workloads]


@pytest.mark.parametrize("stack_name,workload_name", CASES)
def test_the_stack_placement_args_rebuild_the_same_target(stack_name, workload_name):
    stack = parsed(stack_name)
    workload = next(w for w in stack.workloads if w.name == workload_name)
    target = target_for(stack, workload)
    args = placement_args(stack, target)
    placement = Placement.model_validate(args)
    assert target_from_placement(placement) == target
    assert placement.cpu_machine_type == stack.cpu_pool.machine_type
    assert set(args) <= set(Placement.model_fields)


def test_every_target_field_is_a_placement_field_or_derived_from_one():
    """A fact a builder reads about where a workload runs has its placement arg (the shape from tpu_type,
    tpu_topology and tpu_machine_type)."""
    derived = {"shape": ("tpu_type", "tpu_topology", "tpu_machine_type")}
    for f in dataclasses.fields(WorkloadTarget):
        assert f.name in Placement.model_fields or set(derived.get(f.name, ("-",))) <= set(Placement.model_fields), f.name
