"""Ironwood's dynamic slicing beside the other features of the same stack: the ClusterQueue's admission checks are
each scoped to their own flavors (the ProvisioningRequest check on queued flavors, the slice check on
dynamic-slicing ones, in the fallback order), an ordered fallback never names a dynamic-slicing group (its workers
select a shape; a dynamic slice is formed on one group's sub-blocks), and XPK's parallel containers share the
multi-tier checkpointing RAM disk."""

from __future__ import annotations

from typing import Any

import pytest

from pathways_gke.addons.kueue import cluster_queue, kueue_objects
from pathways_gke.config import parse_stack
from pathways_gke.config.placement import Placement, placement_problems
from pathways_gke.errors import ConfigError
from pathways_gke.render.objects import objects_for
from tests.support.crd import kueue_schema_errors
from tests.support.stacks import stack

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"
PATHWAYS = {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}
SUB_BLOCKS = {"name": "iw", "type": "tpu7x", "topology": "4x4x4", "slices": 8, "zone": "us-east5-b",
              "capacity": "reservation", "reservation": "acme-iw", "dynamicSlicing": True}
RESERVED = {"name": "train", "type": "v6e-16", "slices": 4, "zone": "us-east5-b", "capacity": "reservation",
            "reservation": "acme-v6e-east5"}
QUEUED = {"name": "burst", "type": "v6e-16", "slices": 2, "zone": "us-east5-b", "capacity": "queued"}
ON_SLICE = {"name": "big", "tpuPool": "iw", "image": IMAGE, "command": "python3 t.py", "pathways": PATHWAYS,
            "dynamicSlice": {"topology": "4x4x16", "count": 2}}
FALLING_BACK = {"name": "small", "tpuPools": ["train", "burst"], "image": IMAGE, "command": "python3 t.py",
                "pathways": PATHWAYS}


def mixed(*workloads: dict[str, Any], pools: tuple[dict[str, Any], ...] = (RESERVED, SUB_BLOCKS, QUEUED)) -> dict:
    return stack(cluster={"name": "pw", "location": "us-east5", "releaseChannel": "RAPID"},
                 kueue={"enabled": True}, tpuPools=list(pools), workloads=list(workloads or (ON_SLICE, FALLING_BACK)))


def problems(config: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return {p.path: p.message for p in caught.value.problems}


def test_each_admission_check_is_scoped_to_its_own_flavors_in_the_fallback_order():
    cfg = parse_stack(mixed(ON_SLICE, {**FALLING_BACK, "tpuPools": ["burst", "train"]}))
    spec = cluster_queue(cfg)["spec"]
    flavors = [f["name"] for f in spec["resourceGroups"][0]["flavors"]]
    # the fallback list (burst before train) reorders its groups in their slots; the sub-block group keeps its own
    assert flavors == ["pathways-cpu", "pathways-tpu-burst", "pathways-tpu-iw", "pathways-tpu-train"]
    assert spec["admissionChecksStrategy"] == {"admissionChecks": [
        {"name": "pathways-queued-provisioning", "onFlavors": ["pathways-tpu-burst"]},
        {"name": "pathways-dynamic-slicing", "onFlavors": ["pathways-tpu-iw"]}]}


@pytest.mark.needs_shared
def test_the_mixed_queue_objects_validate_against_the_upstream_crds():
    for _, obj in kueue_objects(parse_stack(mixed())):
        if obj["kind"] == "Topology":  # no stored Topology CRD (tests/test_ironwood.py checks its level rules)
            continue
        assert kueue_schema_errors(obj) == {"v0.17.1": [], "v0.19.2": []}, obj["metadata"]["name"]


def test_the_dynamic_slice_and_the_fallback_workers_each_select_as_their_placement_says():
    cfg = parse_stack(mixed())
    by_name = {w.name: w for w in cfg.workloads}
    sliced = objects_for(by_name["big"], Placement.of(cfg, by_name["big"])).primary
    falling = objects_for(by_name["small"], Placement.of(cfg, by_name["small"])).primary

    def worker_pod(jobset: dict) -> dict:
        job = next(j for j in jobset["spec"]["replicatedJobs"] if j["name"] == "worker")
        return job["template"]["spec"]["template"]

    sliced_pod, falling_pod = worker_pod(sliced), worker_pod(falling)
    assert "cloud.google.com/gke-tpu-topology" not in sliced_pod["spec"]["nodeSelector"]
    assert sliced_pod["spec"]["nodeSelector"]["pathways-gke/tpu-group"] == "iw"
    assert any("slice" in key for key in sliced_pod["metadata"].get("annotations", {}))
    assert falling_pod["spec"]["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                                                   "cloud.google.com/gke-tpu-topology": "4x4"}
    assert not any("slice" in key for key in falling_pod["metadata"].get("annotations", {}))


def test_an_ordered_fallback_naming_a_dynamic_slicing_group_is_refused_at_that_entry():
    twin = {**SUB_BLOCKS, "name": "iw2", "reservation": "acme-iw2"}
    found = problems(mixed({**ON_SLICE, "tpuPool": None, "tpuPools": ["iw", "iw2"]}, pools=(SUB_BLOCKS, twin)))
    assert "a dynamicSlicing group" in found["workloads[0].tpuPools[0]"]
    assert "name it alone with tpuPool" in found["workloads[0].tpuPools[1]"]


def test_placement_args_refuse_a_dynamic_slice_with_fallback_groups():
    placement, found = placement_problems(
        {"tpu_type": "tpu7x", "tpu_topology": "4x4x16", "slices": 2, "queue_name": "pathways-queue",
         "fallback_groups": ["iw", "iw2"], "dynamic_slice": True}, (), tpu_required=True)
    assert placement is None
    assert [p.path for p in found] == ["fallback_groups"] and "dynamic_slice" in found[0].message


def test_parallel_containers_are_checked_on_the_first_group_of_a_fallback_list():
    pools = ({"name": "a", "type": "tpu7x", "topology": "2x2x2", "slices": 2, "zone": "us-east5-b",
              "capacity": "reservation", "reservation": "acme-a"},
             {"name": "b", "type": "tpu7x", "topology": "2x2x2", "slices": 2, "zone": "us-east5-b",
              "capacity": "queued"})
    jax = {"name": "probe", "runtime": "jax", "tpuPools": ["a", "b"], "image": IMAGE, "command": "python3 t.py",
           "parallelContainers": 2}
    cfg = parse_stack(mixed(jax, pools=pools))
    pod = objects_for(cfg.workloads[0], Placement.of(cfg, cfg.workloads[0])).primary
    job = pod["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert [c["name"] for c in job["containers"]] == ["jax-1", "jax-2"]
    assert job["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu7x",
                                   "cloud.google.com/gke-tpu-topology": "2x2x2"}


def test_parallel_containers_both_mount_the_multi_tier_checkpointing_ram_disk():
    pool = {"name": "a", "type": "tpu7x", "topology": "2x2x2", "slices": 1, "zone": "us-east5-b"}
    jax = {"name": "probe", "runtime": "jax", "tpuPool": "a", "image": IMAGE, "command": "python3 t.py",
           "parallelContainers": 2, "multiTierCheckpointing": {"mountPath": "/local"}}
    config = stack(cluster={"name": "pw", "location": "us-east5", "projectNumber": "123456789012",
                            "multiTierCheckpointing": {"bucket": "acme-ckpt", "inMemoryVolumeSize": "64Gi"}},
                   tpuPools=[pool], workloads=[jax])
    cfg = parse_stack(config)
    jobset = objects_for(cfg.workloads[0], Placement.of(cfg, cfg.workloads[0])).primary
    spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    first, second = spec["containers"]
    assert first["volumeMounts"] == second["volumeMounts"]
    assert [m["mountPath"] for m in first["volumeMounts"]] == ["/local"]
    assert {v["name"] for v in spec["volumes"]} == {m["name"] for m in first["volumeMounts"]}


# --- an adopted cluster (issue 34): the slices a stack adds carry their group's taint -------------------------

def adopted_dynamic(**pool: Any) -> dict:
    return stack(cluster={"name": "pw", "location": "us-east5", "create": False}, kueue={"enabled": True},
                 tpuPools=[{**SUB_BLOCKS, **pool}], workloads=[ON_SLICE])


def test_on_an_adopted_cluster_the_dynamic_slicing_flavor_keeps_its_topology_and_lists_the_group_taint():
    flavor = dict(kueue_objects(parse_stack(adopted_dynamic())))["flavor-tpu-iw"]["spec"]
    assert flavor["topologyName"] == "pathways-dynamic-slicing"
    assert "cloud.google.com/gke-tpu-topology" not in flavor["nodeLabels"]
    assert flavor["nodeTaints"] == [{"key": "pathways-gke/tpu-group", "value": "iw", "effect": "NoSchedule"}]
    assert {"key": "pathways-gke/tpu-group", "operator": "Equal", "value": "iw",
            "effect": "NoSchedule"} in flavor["tolerations"]


def test_on_an_adopted_cluster_the_dynamic_slice_workers_tolerate_the_group_taint_and_ask_by_annotation():
    cfg = parse_stack(adopted_dynamic())
    placement = Placement.of(cfg, cfg.workloads[0])
    assert placement.dynamic_slice and placement.group_taint and placement.tpu_topology == "4x4x16"
    jobset = objects_for(cfg.workloads[0], placement).primary
    pod = next(j for j in jobset["spec"]["replicatedJobs"] if j["name"] == "worker")["template"]["spec"]["template"]
    assert {"key": "pathways-gke/tpu-group", "operator": "Equal", "value": "iw",
            "effect": "NoSchedule"} in pod["spec"]["tolerations"]
    assert "cloud.google.com/gke-tpu-topology" not in pod["spec"]["nodeSelector"]
    assert any("slice" in key for key in pod["metadata"].get("annotations", {}))


@pytest.mark.parametrize("key", ["dynamicSlicing", "numaAware"])
def test_a_group_of_existing_slices_refuses_the_ironwood_keys_that_shape_pools_it_creates(key):
    pool = {"name": "np", "create": False, "type": "tpu7x", "topology": "4x4x4", "slices": 2, "zone": "us-east5-b",
            key: True}
    config = stack(cluster={"name": "pw", "location": "us-east5", "create": False}, cpuPool={"create": False},
                   tpuPools=[pool], workloads=[{"name": "t", "tpuPool": "np", "image": IMAGE, "command": "python3 t.py",
                                                "pathways": PATHWAYS}])
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    at_key = [p.message for p in caught.value.problems if p.path == f"tpuPools[0].{key}"]
    assert any("only shapes node pools pathways-gke creates" in message for message in at_key), at_key
