"""The one placement model (config/placement.py): where a workload runs is one `Placement`, whether it comes from the
stack or from a component's args. What PathwaysCluster hands a workload component is exactly what the component
rebuilds (model -> args -> model, nothing lost or added), and the cluster's `tpuPools` output is those same args,
so a platform program passes them to a workload component unchanged."""

from __future__ import annotations

import pytest

from pathways_gke.cluster import tpu_placements
from pathways_gke.config.placement import Placement, placement_problems
from pathways_gke.render.objects import objects_for
from pathways_gke.workloads.jax import validate_args as validate_jax
from pathways_gke.workloads.pathways import validate_args as validate_pathways
from pathways_gke.workloads.serving import validate_args as validate_serving

from .support.stacks import parsed

SHIPPED = ("dev", "prod", "jax", "serve", "jetstream")
CASES = [(stack, w.name) for stack in SHIPPED for w in parsed(stack).workloads]
TPU_CASES = [(stack, w.name) for stack in SHIPPED for w in parsed(stack).workloads
             if w.tpu_pool is not None and parsed(stack).pool(w.tpu_pool) is not None]
"""The workloads that run on a TPU pool group."""


def _workload(stack_name: str, workload_name: str):
    stack = parsed(stack_name)
    return stack, next(w for w in stack.workloads if w.name == workload_name)


@pytest.mark.parametrize("stack_name,workload_name", CASES)
def test_the_stack_placement_args_rebuild_the_same_placement(stack_name, workload_name):
    stack, workload = _workload(stack_name, workload_name)
    placement = Placement.of(stack, workload)
    rebuilt, problems = placement_problems(placement.args(), (), tpu_required=False)
    assert problems == [] and rebuilt == placement
    assert rebuilt.shape == placement.shape
    assert placement.cpu_machine_type == stack.cpu_pool.machine_type
    assert placement.namespace == stack.namespace and placement.cpu_pool == stack.cpu_pool.name


@pytest.mark.parametrize("stack_name,workload_name", TPU_CASES)
def test_the_cluster_tpu_pools_output_is_what_a_workload_on_that_pool_is_given(stack_name, workload_name):
    stack, workload = _workload(stack_name, workload_name)
    assert tpu_placements(stack)[workload.tpu_pool] == Placement.of(stack, workload).args()


VALIDATE = {"jax": validate_jax, "pathways": validate_pathways}


@pytest.mark.parametrize("stack_name,workload_name", TPU_CASES)
def test_a_workload_given_the_tpu_pools_output_unchanged_renders_what_the_stack_renders(stack_name, workload_name):
    """A platform program's `PathwaysWorkload(name, {"workload": w, **cluster.tpu_pools[group]})`: the same objects as
    the stack's own workload (the component's own checks accept the output as it is)."""
    from pathways_gke.config.jax_args import jax_inputs_from_stack
    from pathways_gke.workloads.pathways import pathways_args_from_stack

    stack, workload = _workload(stack_name, workload_name)
    if workload.runtime == "jax":
        given = jax_inputs_from_stack(stack, workload)["workload"]
    else:
        given = pathways_args_from_stack(stack, workload)["workload"]
    if workload.secret_env:
        pytest.skip("needs secret values; the placement is checked by the other cases")
    args = {"workload": given, **tpu_placements(stack)[workload.tpu_pool]}
    validate = validate_serving if workload.on_lws else VALIDATE[workload.runtime]
    if workload.on_lws:
        args.update(lws_version=stack.lws.version,
                    **({"kueue_version": stack.kueue.version} if stack.kueue.enabled else {}))
    checked = validate(args)
    assert checked.placement == Placement.of(stack, workload)
    assert checked.objects == objects_for(workload, Placement.of(stack, workload))


def test_a_cpu_placement_has_no_slices_and_leaves_the_tpu_args_out():
    stack = parsed("jax")
    placement = Placement.for_pool(stack, None)
    assert placement.shape is None and placement.slice_count == 0
    assert not {"tpu_type", "tpu_topology", "tpu_machine_type", "slices", "tpu_group"} & set(placement.args())


def test_a_placement_is_built_from_the_same_catalog_as_the_stack():
    """tpu7x multi-host pools carry their workload policy; the shape is the catalog's for the pool's machine."""
    stack = parsed("prod")
    for pool in stack.tpu_pools:
        placement = Placement.for_pool(stack, pool)
        assert placement.shape == pool.shape
        assert (placement.placement_policy is not None) == pool.shape.needs_workload_policy
        assert placement.capacity == pool.capacity and placement.slices == pool.slices
