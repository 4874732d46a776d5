"""A reservation per slice (`tpuPools[].reservations`): one entry every slice consumes, or one per slice (slice i
consumes entry i), as XPK 1.16 core/nodepool.py accepts a reservation count of 1 or the number of new pools; blocks
and sub-blocks in the GKE/TFB reservation_affinity form projects/P/reservations/NAME/reservationBlocks/B/
reservationSubBlocks/S."""

import pytest

from pathways_gke.config import parse_stack
from pathways_gke.config.model import ClusterFacts
from pathways_gke.errors import ConfigError
from pathways_gke.gke.nodepools import tpu_pool_specs
from tests.support.stacks import ABSENT, merged

RESERVED = {"capacity": "reservation", "slices": 2, "reservation": ABSENT}


def affinities(**pool):
    config = parse_stack(merged("dev", tpuPools=[{**RESERVED, **pool}]))
    specs = tpu_pool_specs(ClusterFacts.of(config), config.tpu_pools[0], component="pw", cluster="C",
                           service_account="SA")
    return [spec.args["node_config"]["reservation_affinity"]["values"] for spec in specs]


def problems(**pool):
    with pytest.raises(ConfigError) as caught:
        parse_stack(merged("dev", tpuPools=[{**RESERVED, **pool}]))
    return {p.path: p.message for p in caught.value.problems}


def test_two_reservations_for_two_slices_land_one_per_slice():
    assert affinities(reservations=["res-a", {"name": "res-b", "project": "shared-proj", "block": "blk-1",
                                              "subBlock": "sub-2"}]) == [
        ["projects/acme-ml-dev/reservations/res-a"],
        ["projects/shared-proj/reservations/res-b/reservationBlocks/blk-1/reservationSubBlocks/sub-2"],
    ]


def test_one_entry_is_consumed_by_every_slice():
    assert affinities(reservations=[{"name": "res-a", "block": "blk-1"}]) == [
        ["projects/acme-ml-dev/reservations/res-a/reservationBlocks/blk-1"]] * 2


def test_three_reservations_for_two_slices_are_refused():
    found = problems(reservations=["a", "b", "c"])
    assert "3 entries for 2 slice(s)" in found["tpuPools[0].reservations"]
    assert "allowed: 1" in found["tpuPools[0].reservations"]


def test_reservations_is_exclusive_with_reservation():
    found = problems(reservation="res-a", reservations=["res-b"])
    assert "not both" in found["tpuPools[0].reservations"]


def test_reservations_need_capacity_reservation():
    found = problems(capacity="spot", reservations=["res-a"])
    assert "only capacity 'reservation'" in found["tpuPools[0].reservations"]


def test_capacity_reservation_accepts_reservations_instead_of_reservation():
    assert len(affinities(reservations=["res-a", "res-b"])) == 2
    assert "tpuPools[0].reservation" in problems()  # neither given: still required
