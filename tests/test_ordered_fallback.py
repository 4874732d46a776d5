"""Ordered fallback (`workloads[].tpuPools`): a workload that falls back from a reservation group to a queued (DWS)
group renders Kueue's flavor order, the ProvisioningRequest check scoped to the queued flavor, and shape-only worker
selectors (Kueue injects the admitted flavor's nodeLabels and tolerations; sources in config/fallback.py). Mixed
shapes, fallback without Kueue, groups of
the same shape left out of the list and inconsistent orders are refused, each naming the key and the reason."""

import pytest

from pathways_gke.addons.kueue import cluster_queue, kueue_objects
from pathways_gke.config import parse_stack
from pathways_gke.config.placement import Placement
from pathways_gke.errors import ConfigError
from pathways_gke.render.objects import objects_for
from tests.support.stacks import ABSENT, merged, stack
from tests.support.crd import kueue_schema_errors

RESERVED = {"name": "train", "type": "v6e-16", "slices": 4, "zone": "us-east5-b", "capacity": "reservation",
            "reservation": "acme-v6e-east5"}
QUEUED = {"name": "burst", "type": "v6e-16", "slices": 2, "zone": "us-east5-b", "capacity": "queued"}
SPOT = {"name": "cheap", "type": "v6e-16", "slices": 2, "zone": "us-east5-c", "capacity": "spot"}


def fallback_stack(pools=(RESERVED, QUEUED), order=("train", "burst"), **sections):
    config = stack("prod", tpuPools=list(pools), **sections)
    return merged(config, workloads=[{"tpuPool": ABSENT, "tpuPools": list(order)}])


def problems(config):
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return {p.path: p.message for p in caught.value.problems}


def tpu_flavor_names(config):
    return [f["name"] for f in cluster_queue(config)["spec"]["resourceGroups"][0]["flavors"][1:]]


@pytest.mark.slow
def test_reservation_then_queued_renders_order_scoped_check_and_shape_only_selectors():
    config = parse_stack(fallback_stack(order=("train", "burst")))
    queue = cluster_queue(config)
    assert tpu_flavor_names(config) == ["pathways-tpu-train", "pathways-tpu-burst"]
    assert queue["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": "pathways-queued-provisioning", "onFlavors": ["pathways-tpu-burst"]}]}
    placement = Placement.of(config, config.workloads[0])
    assert placement.fallback_groups == ["train", "burst"] and placement.slices == 2
    jobset = objects_for(config.workloads[0], placement).primary
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"]
    workers = [j for j in jobset["spec"]["replicatedJobs"] if j["name"] == "worker"][0]
    spec = workers["template"]["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                                    "cloud.google.com/gke-tpu-topology": "4x4"}
    assert spec["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert workers["replicas"] == 2  # fits the smaller group, whichever admits it
    for _, obj in kueue_objects(config):
        assert kueue_schema_errors(obj) == {"v0.17.1": [], "v0.19.2": []}, obj["metadata"]["name"]


def test_the_flavor_order_follows_the_workload_not_the_stack():
    config = parse_stack(fallback_stack(order=("burst", "train")))
    assert tpu_flavor_names(config) == ["pathways-tpu-burst", "pathways-tpu-train"]


def test_mixed_shapes_are_refused_naming_the_key_and_reason():
    other = {**QUEUED, "type": "v5p", "topology": "2x2x2"}
    found = problems(fallback_stack(pools=(RESERVED, other)))
    message = found["workloads[0].tpuPools[1]"]
    assert "generation v5p" in message and "topology 2x2x2" in message and "machine type" in message


def test_another_region_is_refused():
    found = problems(fallback_stack(pools=(RESERVED, {**QUEUED, "zone": "us-central1-a"}),
                                    cluster={"name": "pw-prod", "location": "us-east5"}))
    assert "region us-central1" in found["workloads[0].tpuPools[1]"]


def test_fallback_without_kueue_is_refused():
    found = problems(fallback_stack(kueue={"enabled": False}))
    assert "kueue.enabled is false" in found["workloads[0].tpuPools"]


def test_a_group_of_the_same_shape_left_out_is_refused():
    found = problems(fallback_stack(pools=(RESERVED, QUEUED, SPOT)))
    assert "leaves out group(s) cheap" in found["workloads[0].tpuPools"]


def test_two_lists_must_order_shared_groups_alike():
    config = fallback_stack()
    second = {**config["pathways-gke:workloads"][0], "name": "llm-other", "tpuPools": ["burst", "train"]}
    config["pathways-gke:workloads"].append(second)
    assert "orders burst before train" in problems(config)["workloads[1].tpuPools"]
    second["tpuPools"] = ["train", "burst"]
    parse_stack(config)  # consistent: accepted


def test_tpu_pool_and_tpu_pools_together_are_refused():
    config = merged("prod", workloads=[{"tpuPools": ["train"]}])
    assert "not both" in problems(config)["workloads[0].tpuPools"]


def test_unknown_group_in_the_list_is_refused():
    found = problems(fallback_stack(order=("train", "nope")))
    assert "names no TPU pool group" in found["workloads[0].tpuPools[1]"]


@pytest.mark.slow
def test_the_component_args_carry_the_fallback_and_render_the_same_workers():
    from pathways_gke.workloads import pathways

    config = parse_stack(fallback_stack())
    args = pathways.pathways_args_from_stack(config, config.workloads[0], {})
    assert args["fallback_groups"] == ["train", "burst"] and "tpu_group" not in args
    assert args.get("capacity", "on-demand") == "on-demand"  # no capacity extras: each group has its own
    jobset = pathways.validate_args(args).objects.primary
    workers = [j for j in jobset["spec"]["replicatedJobs"] if j["name"] == "worker"][0]
    assert "pathways-gke/tpu-group" not in workers["template"]["spec"]["template"]["spec"]["nodeSelector"]


def test_a_component_fallback_without_a_queue_is_refused_at_the_arg():
    from pathways_gke.config.placement import placement_problems

    _, found = placement_problems({"tpu_type": "v6e-16", "slices": 2, "fallback_groups": ["a", "b"]}, (),
                                  tpu_required=True)
    assert [p.path for p in found] == ["queue_name"]


@pytest.mark.slow
def test_the_fallback_workers_fit_the_pools_of_their_shape():
    from pathways_gke.fit import place
    from pathways_gke.plan import plan_config

    plan = plan_config(fallback_stack(), stack="prod").to_json()
    assert place(plan["resources"]) == []


@pytest.mark.slow
def test_a_jax_workload_falls_back_the_same_way():
    from pathways_gke.workloads import jax as jax_workload

    config = fallback_stack()
    jax = {"name": "jax-run", "runtime": "jax", "tpuPools": ["train", "burst"],
           "image": "us-docker.pkg.dev/acme/train/jax:v1", "command": "python3 run.py"}
    config["pathways-gke:workloads"] = [jax]
    parsed = parse_stack(config)
    args = jax_workload.jax_args_from_stack(parsed, parsed.workloads[0], {})
    jobset = jax_workload.validate_args(args).objects.primary
    spec = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    assert spec["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                                    "cloud.google.com/gke-tpu-topology": "4x4"}
    assert spec["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
