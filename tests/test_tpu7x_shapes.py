"""Ironwood (tpu7x) slice shapes follow the peers' one rule, not a list: tpu7x-standard-4t takes 2x2x1, 2x2x2,
2x2x4, 2x4x4 and every AxBxC with A <= B <= C multiples of 4 (each side <= 256, XPK's range) of at most 144 cubes
of 4x4x4. Sources: XPK core/system_characteristics.py `generate_tpu_topologies(max_cubes=144)` (main 367c838),
Cluster Toolkit pkg/config/hardware.go `Validate3DTopology`, `tpu3DConstraintsMap["tpu7x"] = {maxCubes: 144}`
(commit 00774fd4)."""

import itertools

import pytest

from pathways_gke.catalog import GENERATIONS, TPU7X_CUBE_RULE, CatalogError, chips_of, cubes_of, resolve
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from tests.support.stacks import stack

TPU7X_4T = {m.name: m for m in GENERATIONS["tpu7x"].machine_types}["tpu7x-standard-4t"]

# google/pathways-job v0.1.4's list, which the catalog used before: 98 shapes
OPERATOR_LIST_SIZE = 98


def peers_accept(topology: str) -> bool:
    """The rule as both peers write it, for one shape (XPK's side cap of 256 included)."""
    if topology in ("2x2x1", "2x2x2", "2x2x4", "2x4x4"):
        return True
    a, b, c = (int(d) for d in topology.split("x"))
    return (all(s % 4 == 0 and 4 <= s <= 256 for s in (a, b, c)) and a <= b <= c
            and (a // 4) * (b // 4) * (c // 4) <= 144)


def test_the_4t_host_takes_the_432_shapes_both_peers_accept_334_more_than_the_operators_list():
    assert len(TPU7X_4T.topologies) == 432 == OPERATOR_LIST_SIZE + 334
    assert len(set(TPU7X_4T.topologies)) == 432


SIDES = (1, 2) + tuple(range(4, 261, 4))  # up to one step past XPK's cap of 256


def test_the_shapes_with_a_short_first_side_are_exactly_those_the_peers_accept():
    taken = set(TPU7X_4T.topologies)
    for a, b, c in itertools.product((1, 2, 4, 8, 12, 16), SIDES, SIDES):
        topology = f"{a}x{b}x{c}"
        assert (topology in taken) == peers_accept(topology), topology


@pytest.mark.slow
def test_every_side_combination_up_to_the_cap_is_accepted_exactly_when_the_peers_accept_it():
    taken = set(TPU7X_4T.topologies)
    accepted = {f"{a}x{b}x{c}" for a, b, c in itertools.product(SIDES, repeat=3) if peers_accept(f"{a}x{b}x{c}")}
    assert taken == accepted
    for topology in ("4x4x8", "8x4x4", "16x24x32", "4x4x260", "2x2x3"):
        assert (TPU7X_CUBE_RULE.problem(topology) is None) == (topology in accepted)


@pytest.mark.parametrize("topology,vms,cubes", [
    ("4x4x4", 16, 1), ("4x4x16", 64, 4), ("4x8x16", 128, 8), ("8x8x32", 512, 32), ("4x4x256", 1024, 64),
    ("12x12x64", 2304, 144), ("16x16x36", 2304, 144), ("8x16x72", 2304, 144), ("4x12x192", 2304, 144),
    ("16x24x24", 2304, 144), ("4x4x20", 80, 5),
])
def test_cube_built_shapes_give_vms_chips_and_the_workload_policy_topology(topology, vms, cubes):
    shape = resolve("tpu7x", topology)
    assert (shape.machine_type, shape.chips_per_vm, shape.vms_per_slice) == ("tpu7x-standard-4t", 4, vms)
    assert cubes_of(topology) == cubes and shape.chips == chips_of(topology) == 64 * cubes
    assert shape.needs_workload_policy
    assert shape.instance_type == f"tpu7x:{topology}"


@pytest.mark.parametrize("topology,fragment", [
    ("16x24x32", "it is 192 cubes of 4x4x4; the limit is 144 cubes (9216 chips)"),
    ("4x12x196", "it is 147 cubes of 4x4x4; the limit is 144 cubes"),
    ("4x4x260", "has a side of 260; the longest side allowed is 256"),
    ("8x4x4", "non-decreasing sides (A <= B <= C): 4x4x8"),
    ("4x4x6", "every side must be a multiple of 4"),
    ("2x2x8", "every side must be a multiple of 4"),
    ("4x4", "is not an AxBxC topology"),
])
def test_a_shape_outside_the_rule_is_refused_with_the_reason_and_the_limit(topology, fragment):
    with pytest.raises(CatalogError, match="is not a tpu7x topology") as caught:
        resolve("tpu7x", topology)
    assert fragment in str(caught.value)
    assert "tpu7x-standard-4t" in str(caught.value) and "144 cubes" in str(caught.value)


def test_every_shape_the_catalog_took_before_is_still_taken():
    operator_extra = ("16x16x32", "16x24x24")
    for topology in GENERATIONS["v5p"].topologies + operator_extra:
        assert topology in TPU7X_4T.topologies


def test_the_one_chip_host_keeps_its_one_shape():
    shape = resolve("tpu7x", "1x1x1")
    assert (shape.machine_type, shape.vms_per_slice, shape.needs_workload_policy) == ("tpu7x-standard-1t", 1, False)
    with pytest.raises(CatalogError, match="cannot host topology 4x4x16"):
        resolve("tpu7x", "4x4x16", "tpu7x-standard-1t")


def _tpu7x_stack(topology: str, slices: int = 2) -> dict:
    return stack(tpuPools=[{"name": "iw", "type": "tpu7x", "topology": topology, "slices": slices,
                            "zone": "us-east5-b"}])


def test_a_stack_of_two_4x4x16_slices_is_valid():
    config = parse_stack(_tpu7x_stack("4x4x16"))
    (pool,) = config.tpu_pools
    assert (pool.shape.vms_per_slice, pool.shape.instance_type) == (64, "tpu7x:4x4x16")


def test_a_16x24x32_stack_is_refused_for_its_size_naming_the_key_and_the_limit():
    with pytest.raises(ConfigError) as caught:
        parse_stack(_tpu7x_stack("16x24x32"))
    text = str(caught.value)
    assert "tpuPools[0].topology" in text and "'16x24x32'" in text
    assert "192 cubes of 4x4x4; the limit is 144 cubes" in text


@pytest.mark.slow
@pytest.mark.parametrize("topology,vms", [("4x4x16", 64), ("8x8x32", 512), ("12x12x64", 2304), ("2x2x2", 2)])
def test_the_plan_of_a_cube_built_stack_has_the_pools_and_the_policy_for_its_shape(topology, vms):
    from pathways_gke.plan import plan_config

    plan = plan_config(_tpu7x_stack(topology), stack="iw")
    (policy,) = plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": topology}
    pools = [r for r in plan.of_type("gcp:container/nodePool:NodePool") if r.name.startswith("pw-iw-")]
    assert len(pools) == 2
    for pool in pools:
        assert pool.inputs["nodeCount"] == vms
        assert pool.inputs["nodeConfig"]["machineType"] == "tpu7x-standard-4t"
        assert pool.inputs["placementPolicy"]["policyName"] == policy.inputs["name"]


XPK_TPU7X_SHAPES = """
import json
from xpk.core.system_characteristics import UserFacingNameToSystemCharacteristics as systems
print(json.dumps(sorted({(s.topology, s.vms_per_slice, s.requires_workload_policy)
                         for s in systems.values() if s.gce_machine_type == "tpu7x-standard-4t"})))
"""


@pytest.mark.slow
def test_the_shapes_vms_and_policies_are_xpks_own():
    """XPK itself (PATHWAYS_GKE_XPK_PYTHON, xpk==1.16.0) lists the same tpu7x-standard-4t shapes, VM counts and
    workload-policy need as the catalog."""
    import json
    import subprocess

    from tests.test_pathways_vs_xpk import xpk_python

    result = subprocess.run([xpk_python(), "-c", XPK_TPU7X_SHAPES], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    xpk = {(topology, vms, policy) for topology, vms, policy in json.loads(result.stdout)}
    ours = {(t, resolve("tpu7x", t).vms_per_slice, resolve("tpu7x", t).needs_workload_policy)
            for t in TPU7X_4T.topologies}
    assert ours == xpk
