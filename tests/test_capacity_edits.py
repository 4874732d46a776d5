"""What editing the capacity keys does on a real `pulumi up` (the apply-outcome model, apply_rules.py): a slice's
reservation is ForceNew on its node pool (google_container_node_pool node_config.reservation_affinity), so changing
one entry of `reservations` replaces that slice only; `cluster.autoprovisioning` is the cluster's clusterAutoscaling,
updated in place (no ForceNew under cluster_autoscaling in terraform-provider-google)."""

import pytest

from pathways_gke.plan import plan_config
from pathways_gke.plan.diff import diff_plans
from tests.support.stacks import ABSENT, merged

RESERVED = {"capacity": "reservation", "slices": 2, "reservation": ABSENT}


def diff(old, new):
    return diff_plans(plan_config(old, stack="dev"), plan_config(new, stack="dev"))


@pytest.mark.slow
def test_changing_one_slice_reservation_replaces_that_slice_only():
    before = merged("dev", tpuPools=[{**RESERVED, "reservations": ["res-a", "res-b"]}])
    after = merged("dev", tpuPools=[{**RESERVED, "reservations": ["res-a", "res-c"]}])
    changed = {c.name: c for c in diff(before, after).changed}
    pools = [name for name, c in changed.items() if c.type == "gcp:container/nodePool:NodePool"]
    assert pools == ["pw-dev-main-1"]
    assert changed["pw-dev-main-1"].replace
    # the JobSet on those slices is replaced with them (its replaceWith), as for any slice replacement
    assert set(changed) == {"pw-dev-main-1", "pw-dev-train-jobset"}
    assert "nodeConfig.reservationAffinity.values[0]" in changed["pw-dev-main-1"].properties


@pytest.mark.slow
def test_turning_on_autoprovisioning_updates_the_cluster_in_place():
    after = merged("dev", cluster={"autoprovisioning": {"enabled": True, "tpuChipsMax": {"v6e": 16}}})
    changed = {c.name: c for c in diff(merged("dev"), after).changed}
    cluster = changed["pw-dev-cluster"]
    assert not cluster.replace and not cluster.refusals
    assert any(p.startswith("clusterAutoscaling") for p in cluster.properties)
