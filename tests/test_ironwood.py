"""Ironwood in production: dynamic slicing, the second NIC, NUMA-aware hosts and parallel containers render as the
sources show (GKE's dynamic slicing how-to, XPK 1.16.0 `--super-slicing` and parallel containers, Cluster Toolkit's
gke-tpu-7x blueprints; components/pathways_gke/ironwood.py cites each), and every combination they exclude is
refused naming the key and the reason."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from pathways_gke.addons import services_spec
from pathways_gke.addons.kueue import kueue_objects
from pathways_gke.addons.networks import network_objects
from pathways_gke.config import parse_stack
from pathways_gke.config.model import ClusterFacts
from pathways_gke.config.placement import Placement
from pathways_gke.errors import ConfigError
from pathways_gke.gke.cluster_spec import cluster_args
from pathways_gke.gke.nodepools import tpu_pool_specs, workload_policy_args
from pathways_gke.render.objects import objects_for
from tests.support.crd import kueue_schema_errors, require_shared
from tests.support.stacks import stack

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"
PATHWAYS = {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}
SUB_BLOCKS = {"name": "iw", "type": "tpu7x", "topology": "4x4x4", "slices": 8, "zone": "us-east5-b",
              "capacity": "reservation", "reservation": "acme-iw", "dynamicSlicing": True}
TRAIN = {"name": "train", "tpuPool": "iw", "image": IMAGE, "command": "python3 t.py", "pathways": PATHWAYS,
         "dynamicSlice": {"topology": "4x4x16", "count": 2}}
RAPID = {"name": "pw", "location": "us-east5", "releaseChannel": "RAPID"}


def dynamic(pool: dict[str, Any] | None = None, workload: dict[str, Any] | None = None, **sections: Any) -> dict:
    config = {"cluster": RAPID, "kueue": {"enabled": True}, "tpuPools": [{**SUB_BLOCKS, **(pool or {})}],
              "workloads": [{**TRAIN, **(workload or {})}], **sections}
    return stack(**{k: v for k, v in config.items()})


def problems(config: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return {p.path: p.message for p in caught.value.problems}


def kueue(config: dict) -> dict[str, dict]:
    return {suffix: obj for suffix, obj in kueue_objects(parse_stack(config))}


def workers(config: dict, index: int = 0) -> dict:
    cfg = parse_stack(config)
    workload = cfg.workloads[index]
    jobset = objects_for(workload, Placement.of(cfg, workload)).primary
    return {rj["name"]: rj for rj in jobset["spec"]["replicatedJobs"]}


# --- dynamic slicing: the infrastructure -----------------------------------------------------------------

def test_the_sub_block_pools_are_16_vm_pools_on_a_provision_only_workload_policy():
    cfg = parse_stack(dynamic())
    (pool,) = cfg.tpu_pools
    specs = tpu_pool_specs(ClusterFacts.of(cfg), pool, component="pw", cluster="C", service_account="SA",
                           policy_name="POLICY")
    assert len(specs) == 8 and {s.args["node_count"] for s in specs} == {16}
    assert {s.args["placement_policy"]["policy_name"] for s in specs} == {"POLICY"}
    assert all(s.args["node_config"]["reservation_affinity"]["consume_reservation_type"] == "SPECIFIC_RESERVATION"
               for s in specs)
    policy = workload_policy_args(ClusterFacts.of(cfg), pool, "pw-iw-wp")["workload_policy"]
    assert policy == {"type": "HIGH_THROUGHPUT", "accelerator_topology": "4x4x4",
                      "accelerator_topology_mode": "PROVISION_ONLY"}


def test_a_plain_tpu7x_group_keeps_its_policy_without_a_topology_mode():
    cfg = parse_stack(dynamic(pool={"dynamicSlicing": False, "topology": "4x4x16", "slices": 2},
                              workload={"dynamicSlice": None}, cluster={"name": "pw", "location": "us-east5"},
                              kueue={"enabled": False}))
    policy = workload_policy_args(ClusterFacts.of(cfg), cfg.tpu_pools[0], "pw-iw-wp")["workload_policy"]
    assert policy == {"type": "HIGH_THROUGHPUT", "accelerator_topology": "4x4x16"}


def test_the_cluster_gets_the_slice_controller_add_on_only_with_dynamic_slicing():
    assert cluster_args(parse_stack(dynamic()))["addons_config"]["slice_controller_config"] == {"enabled": True}
    plain = parse_stack(stack(tpuPools=[{**SUB_BLOCKS, "dynamicSlicing": False, "capacity": "on-demand",
                                         "reservation": None}]))
    assert "slice_controller_config" not in cluster_args(plain)["addons_config"]


def test_kueue_gets_the_slice_topology_its_admission_check_and_a_topology_aware_flavor():
    objs = kueue(dynamic())
    assert objs["slice-topology"]["kind"] == "Topology"
    assert [level["nodeLabel"] for level in objs["slice-topology"]["spec"]["levels"]] == [
        "cloud.google.com/gce-topology-block", "cloud.google.com/gke-tpu-partition-4x4x4-id",
        "kubernetes.io/hostname"]
    assert objs["slice-admission-check"]["spec"] == {"controllerName": "accelerator.gke.io/slice"}
    flavor = objs["flavor-tpu-iw"]["spec"]
    assert flavor["topologyName"] == objs["slice-topology"]["metadata"]["name"]
    assert flavor["nodeLabels"] == {"cloud.google.com/gke-tpu-accelerator": "tpu7x", "pathways-gke/tpu-group": "iw"}
    checks = objs["cluster-queue"]["spec"]["admissionChecksStrategy"]["admissionChecks"]
    assert checks == [{"name": objs["slice-admission-check"]["metadata"]["name"], "onFlavors": ["pathways-tpu-iw"]}]
    tpu_quota = [r for f in objs["cluster-queue"]["spec"]["resourceGroups"][0]["flavors"]
                 if f["name"] == "pathways-tpu-iw" for r in f["resources"] if r["name"] == "google.com/tpu"]
    assert tpu_quota == [{"name": "google.com/tpu", "nominalQuota": "512"}]  # 8 sub-blocks x 64 chips


def test_a_sub_slice_adds_its_partition_level_below_the_sub_block():
    config = dynamic(workload={"dynamicSlice": {"topology": "2x2x4", "count": 2}},
                     cluster={**RAPID, "version": "1.36.0-gke.3712000"})
    levels = [level["nodeLabel"] for level in kueue(config)["slice-topology"]["spec"]["levels"]]
    assert levels == ["cloud.google.com/gce-topology-block", "cloud.google.com/gke-tpu-partition-4x4x4-id",
                      "cloud.google.com/gke-tpu-partition-2x2x4-id", "kubernetes.io/hostname"]


@pytest.mark.slow
@pytest.mark.needs_shared
def test_the_kueue_objects_validate_against_the_upstream_crds():
    require_shared()
    for suffix, obj in kueue_objects(parse_stack(dynamic())):
        if obj["kind"] == "Topology":
            continue  # test below: no Topology CRD is stored
        assert kueue_schema_errors(obj) == {"v0.17.1": [], "v0.19.2": []}, suffix


@pytest.mark.needs_shared
def test_the_topology_object_against_its_crd():
    reference = require_shared() / "kueue" / "v0.19.2"
    if not (reference / "kueue.x-k8s.io_topologies.yaml").exists():
        pytest.skip("shared/reference/kueue has no Topology CRD (kueue.x-k8s.io_topologies.yaml) for v0.17.1 or "
                    "v0.19.2: the Topology is checked against kueue apis/kueue/v1beta2/topology_types.go by hand "
                    "(levels 1-16, hostname last) in test_the_topology_keeps_kueues_level_rules")
    from tests.support.crd import schema_errors
    obj = kueue(dynamic())["slice-topology"]
    assert schema_errors(obj, reference / "kueue.x-k8s.io_topologies.yaml") == []


def test_the_topology_keeps_kueues_level_rules():
    """kueue v1beta2 TopologySpec: 1-16 unique levels, kubernetes.io/hostname only as the last one."""
    for topology in ("4x4x4", "2x2x1", "2x4x4"):
        levels = [lv["nodeLabel"] for lv in kueue(dynamic(
            workload={"dynamicSlice": {"topology": topology}}))["slice-topology"]["spec"]["levels"]]
        assert 1 <= len(levels) <= 16 and len(set(levels)) == len(levels) and levels[-1] == "kubernetes.io/hostname"


def test_the_controllers_are_sized_as_xpk_sizes_them_for_super_slicing():
    spec = services_spec(parse_stack(dynamic()))
    kueue_res, jobset_res = spec.resources["kueue"], spec.resources["jobset"]
    assert (kueue_res.replicas, kueue_res.cpu_request, kueue_res.memory) == (3, "16000m", "65536Mi")
    assert (jobset_res.replicas, jobset_res.cpu_request, jobset_res.memory) == (None, "4000m", "16384Mi")
    assert spec.marker["data"]["kueue.replicas"] == "3"


# --- dynamic slicing: the workloads -------------------------------------------------------------------------

def test_workers_ask_for_the_slice_by_annotation_not_by_topology_selector_or_node_pool():
    jobs = workers(dynamic())
    worker = jobs["worker"]
    assert worker["replicas"] == 2 and worker["template"]["spec"]["parallelism"] == 64
    assert "metadata" not in worker["template"]  # no one-slice-per-node-pool exclusivity
    pod = worker["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"] == {
        "cloud.google.com/gke-tpu-slice-topology": "4x4x16",
        "kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-tpu-partition-4x4x4-id",
        "kueue.x-k8s.io/podset-slice-size": "16"}
    selector = pod["spec"]["nodeSelector"]
    assert "cloud.google.com/gke-tpu-topology" not in selector
    assert "cloud.google.com/placement-policy-name" not in selector
    assert selector["cloud.google.com/gke-tpu-accelerator"] == "tpu7x"


def test_the_resource_manager_is_told_the_slice_shape_and_count():
    head = workers(dynamic())["pathways-head"]["template"]["spec"]["template"]["spec"]
    args = [a for c in [*head.get("initContainers", []), *head["containers"]] for a in c.get("args", [])]
    assert "--instance_type=tpu7x:4x4x16" in args and "--instance_count=2" in args


@pytest.mark.parametrize("count,expected", [
    (1, {"kueue.x-k8s.io/podset-required-topology": "cloud.google.com/gke-tpu-partition-2x2x2-id"}),
    (3, {"kueue.x-k8s.io/podset-slice-required-topology": "cloud.google.com/gke-tpu-partition-2x2x2-id",
         "kueue.x-k8s.io/podset-slice-size": "2"}),
])
def test_a_sub_slice_sits_in_a_partition_of_its_own_shape(count, expected):
    config = dynamic(workload={"dynamicSlice": {"topology": "2x2x2", "count": count}})
    pod = workers(config)["worker"]["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"] == {"cloud.google.com/gke-tpu-slice-topology": "2x2x2", **expected}


def test_a_jax_workload_on_a_dynamic_slice_is_annotated_too():
    config = dynamic(workload={"runtime": "jax", "pathways": None, "dynamicSlice": {"topology": "8x8x8"}})
    config["pathways-gke:workloads"][0].pop("pathways")
    job = workers(config)["workers"]
    assert "metadata" not in job["template"]
    pod = job["template"]["spec"]["template"]
    assert pod["metadata"]["annotations"]["cloud.google.com/gke-tpu-slice-topology"] == "8x8x8"
    assert job["template"]["spec"]["parallelism"] == 128


# --- dynamic slicing: what the sources exclude -------------------------------------------------------------

@pytest.mark.parametrize("pool,path,fragment", [
    ({"capacity": "spot", "reservation": None}, "tpuPools[0].dynamicSlicing", "needs capacity 'reservation', not 'spot'"),
    ({"capacity": "flex-start", "reservation": None}, "tpuPools[0].dynamicSlicing", "not 'flex-start'"),
    ({"capacity": "on-demand", "reservation": None}, "tpuPools[0].dynamicSlicing", "PROVISION_ONLY"),
    ({"topology": "4x4x8", "slices": 1}, "tpuPools[0].dynamicSlicing", "set topology 4x4x4"),
    ({"type": "v5p", "topology": "4x4x4"}, "tpuPools[0].dynamicSlicing", "Ironwood (tpu7x) feature"),
    ({"reservation": {"name": "acme-iw", "block": "b1", "subBlock": "s1"}}, "tpuPools[0].reservation.subBlock",
     "holds one 4x4x4 node pool"),
    ({"autoscaling": True}, "tpuPools[0].autoscaling", "fixed size"),
])
def test_a_pool_combination_the_sources_exclude_is_refused_naming_the_key(pool, path, fragment):
    config = dynamic(pool={k: v for k, v in pool.items() if v is not None})
    for key, value in pool.items():
        if value is None:
            config["pathways-gke:tpuPools"][0].pop(key, None)
    found = problems(config)
    assert fragment in found[path]


def test_a_spot_dynamic_slicing_group_is_refused_for_that_reason():
    config = dynamic(pool={"capacity": "spot"})
    config["pathways-gke:tpuPools"][0].pop("reservation")
    assert "acceleratorTopologyMode PROVISION_ONLY is only supported on a specific reservation" in \
        problems(config)["tpuPools[0].dynamicSlicing"]


def test_kueue_the_rapid_channel_and_the_version_floors_are_required():
    found = problems(dynamic(kueue={"enabled": False}, cluster={"name": "pw", "location": "us-east5",
                                                             "version": "1.35.1-gke.100"}))
    assert "needs kueue.enabled: true" in found["tpuPools[0].dynamicSlicing"]
    assert "must be RAPID" in found["cluster.releaseChannel"]
    assert "1.35.2-gke.1842000" in found["cluster.version"]
    sub = problems(dynamic(workload={"dynamicSlice": {"topology": "2x4x4"}},
                           cluster={**RAPID, "version": "1.35.3-gke.1"}))
    assert "1.36.0-gke.3712000" in sub["cluster.version"] and "sub-slices" in sub["cluster.version"]


@pytest.mark.parametrize("workload,path,fragment", [
    ({"dynamicSlice": None}, "workloads[0].dynamicSlice", "is required on tpuPool 'iw'"),
    ({"dynamicSlice": {"topology": "8x8x8", "count": 1}}, "workloads[0].dynamicSlice", "needs 8 sub-blocks"),
    ({"dynamicSlice": {"topology": "4x4x16", "count": 3}}, "workloads[0].dynamicSlice", "needs 12 sub-blocks"),
    ({"dynamicSlice": {"topology": "16x24x32"}}, "workloads[0].dynamicSlice.topology", "192 cubes"),
    ({"dynamicSlice": {"topology": "2x2x1", "count": 129}}, "workloads[0].dynamicSlice.count", "sub-slices"),
])
def test_a_workload_asking_for_what_its_group_cannot_form_is_refused(workload, path, fragment):
    config = dynamic(pool={"slices": 4}, workload={k: v for k, v in workload.items() if v is not None})
    for key, value in workload.items():
        if value is None:
            config["pathways-gke:workloads"][0].pop(key)
    assert fragment in problems(config)[path]


def test_a_dynamic_slice_on_a_node_pool_group_is_refused():
    config = stack(tpuPools=[{"name": "iw", "type": "tpu7x", "topology": "4x4x8", "zone": "us-east5-b"}],
                   workloads=[TRAIN])
    assert "needs a tpuPool with dynamicSlicing: true" in problems(config)["workloads[0].dynamicSlice"]


# --- the second NIC -------------------------------------------------------------------------------------

NETS = [{"network": "iw-data", "subnetwork": "iw-data-east5"},
        {"network": "projects/acme-net/global/networks/iw-dcn", "subnetwork": "iw-dcn-east5", "deviceMode": "RDMA"}]


def with_networks(**pool: Any) -> dict:
    return stack(cluster={"name": "pw", "location": "us-east5", "additionalNetworks": NETS},
                 tpuPools=[{"name": "iw", "type": "tpu7x", "topology": "2x2x2", "zone": "us-east5-b", **pool}])


def test_every_tpu_pool_gets_a_nic_per_network_and_the_cluster_multi_networking():
    cfg = parse_stack(with_networks(slices=2))
    assert cluster_args(cfg)["enable_multi_networking"] is True
    assert cluster_args(cfg)["datapath_provider"] == "ADVANCED_DATAPATH"  # Dataplane V2
    for spec in tpu_pool_specs(ClusterFacts.of(cfg), cfg.tpu_pools[0], component="pw", cluster="C",
                               service_account="SA", policy_name="P"):
        assert spec.args["network_config"]["additional_node_network_configs"] == [
            {"network": "iw-data", "subnetwork": "iw-data-east5"},
            {"network": "projects/acme-net/global/networks/iw-dcn", "subnetwork": "iw-dcn-east5"}]


def test_each_network_gets_its_param_set_and_network_object():
    objs = dict(network_objects(parse_stack(with_networks())))
    assert list(objs) == ["netparams-iw-data", "network-iw-data", "netparams-iw-dcn", "network-iw-dcn"]
    assert objs["netparams-iw-data"]["apiVersion"] == "networking.gke.io/v1"
    assert objs["netparams-iw-data"]["spec"] == {"vpc": "iw-data", "vpcSubnet": "iw-data-east5",
                                                 "deviceMode": "NetDevice"}
    assert objs["netparams-iw-dcn"]["spec"]["deviceMode"] == "RDMA"
    assert objs["network-iw-dcn"]["spec"] == {"type": "Device", "parametersRef": {
        "group": "networking.gke.io", "kind": "GKENetworkParamSet", "name": "iw-dcn"}}


def test_additional_networks_are_refused_with_the_accelerator_network_profile():
    found = problems(with_networks(networkProfile=True))
    assert "accelerator network profile sets up the hosts' extra networks itself" in found["tpuPools[0].networkProfile"]
    v6e = stack(cluster={"name": "pw", "location": "us-east5", "additionalNetworks": NETS},
                tpuPools=[{"name": "tr", "type": "v6e", "topology": "4x4", "zone": "us-east5-b"}])
    assert "tpuPools[0].networkProfile" in problems(v6e)  # v6e has the profile on by default


def test_a_network_listed_twice_or_the_clusters_own_is_refused():
    twice = stack(cluster={"name": "pw", "location": "us-east5", "additionalNetworks": [NETS[0], NETS[0]]})
    assert "is listed twice" in problems(twice)["cluster.additionalNetworks[1].network"]
    own = stack(cluster={"name": "pw", "location": "us-east5", "network": "iw-data", "additionalNetworks": NETS})
    assert "the cluster's own network" in problems(own)["cluster.additionalNetworks[0].network"]


# --- NUMA -----------------------------------------------------------------------------------------------

def test_a_numa_aware_group_gets_the_numa_kubelet_and_only_that_group():
    cfg = parse_stack(stack(tpuPools=[
        {"name": "iw", "type": "tpu7x", "topology": "2x2x2", "zone": "us-east5-b", "numaAware": True},
        {"name": "other", "type": "tpu7x", "topology": "2x2x2", "zone": "us-east5-b"}]))
    facts = ClusterFacts.of(cfg)
    numa, other = (tpu_pool_specs(facts, pool, component="pw", cluster="C", service_account="SA", policy_name="P")
                   for pool in cfg.tpu_pools)
    assert numa[0].args["node_config"]["kubelet_config"] == {
        "cpu_manager_policy": "static", "topology_manager": {"policy": "restricted"},
        "memory_manager": {"policy": "Static"}}
    assert "kubelet_config" not in other[0].args["node_config"]


def test_numa_awareness_is_refused_off_ironwood():
    config = stack(tpuPools=[{"name": "tr", "type": "v6e", "topology": "4x4", "zone": "us-east5-b",
                              "numaAware": True}])
    assert "applies to tpu7x hosts" in problems(config)["tpuPools[0].numaAware"]


# --- parallel containers --------------------------------------------------------------------------------

def jax_on(pool: dict[str, Any], **workload: Any) -> dict:
    return stack(tpuPools=[{"name": "iw", "zone": "us-east5-b", **pool}],
                 workloads=[{"name": "train", "runtime": "jax", "tpuPool": "iw", "image": IMAGE,
                             "command": "python3 t.py", **workload}])


def test_two_parallel_containers_of_two_chips_each_run_per_vm():
    pod = workers(jax_on({"type": "tpu7x", "topology": "2x2x2", "slices": 2}, parallelContainers=2))
    spec = pod["workers"]["template"]["spec"]["template"]["spec"]
    first, second = spec["containers"]
    assert (first["name"], second["name"]) == ("jax-1", "jax-2")
    assert first["resources"] == second["resources"] == {"limits": {"google.com/tpu": "2"}}
    env = [{e["name"]: e.get("value") for e in c["env"]} for c in (first, second)]
    assert (env[0]["CONTAINER_INDEX"], env[1]["CONTAINER_INDEX"]) == ("0", "1")
    assert env[0]["JAX_NUM_PROCESSES"] == "8"  # 2 slices x 2 VMs x 2 containers
    assert "ports" in first and "ports" not in second  # one host port is declared once per hostNetwork pod
    assert "PARALLEL_CONTAINERS + CONTAINER_INDEX" in " ".join(first["command"])


@pytest.mark.parametrize("workload,pool,fragment", [
    ({"runtime": "pathways", "pathways": PATHWAYS}, {"type": "tpu7x", "topology": "2x2x2"}, "parallelContainers"),
    ({}, {"type": "v6e", "topology": "4x4"}, "is ct6e-standard-4t"),
])
def test_parallel_containers_are_refused_off_tpu7x_4t_and_for_pathways(workload, pool, fragment):
    found = problems(jax_on(pool, parallelContainers=2, **workload))
    assert fragment in " ".join(f"{k} {v}" for k, v in found.items())
    assert "workloads[0].parallelContainers" in found


# --- the whole plan --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_dynamic_slicing_plan_holds_every_object():
    from pathways_gke.plan import plan_config

    plan = plan_config(dynamic(), stack="iw")
    kinds = {r.type for r in plan.resources}
    assert {"kubernetes:kueue.x-k8s.io/v1beta2:Topology", "kubernetes:kueue.x-k8s.io/v1beta2:AdmissionCheck",
            "gcp:compute/resourcePolicy:ResourcePolicy"} <= kinds
    cluster = plan.of_type("gcp:container/cluster:Cluster")[0]
    assert cluster.inputs["addonsConfig"]["sliceControllerConfig"] == {"enabled": True}
    pools = [r for r in plan.of_type("gcp:container/nodePool:NodePool") if r.name.startswith("pw-iw-")]
    assert len(pools) == 8 and {p.inputs["nodeCount"] for p in pools} == {16}


def test_the_fixtures_are_not_shared_mutable_state():
    before = copy.deepcopy(SUB_BLOCKS)
    dynamic(pool={"slices": 2})
    assert SUB_BLOCKS == before


# --- what editing each key does on a real `pulumi up` -----------------------------------------------------

def _diff(old: dict, new: dict):
    from pathways_gke.plan.diff import diff_plans
    from pathways_gke.plan.engine import plan_config

    return diff_plans(plan_config(old, stack="iw").to_json(), plan_config(new, stack="iw").to_json())


IW = {"name": "iw", "type": "tpu7x", "topology": "2x2x2", "slices": 2, "zone": "us-east5-b"}


@pytest.mark.slow
def test_adding_a_second_nic_replaces_every_tpu_pool_and_updates_the_cluster_in_place():
    old = stack(tpuPools=[IW])
    new = stack(cluster={"name": "pw", "location": "us-east5", "additionalNetworks": NETS[:1]}, tpuPools=[IW])
    diff = _diff(old, new)
    by_type: dict[str, list] = {}
    for change in diff.changed:
        by_type.setdefault(change.type, []).append(change)
    pools = [c for c in by_type["gcp:container/nodePool:NodePool"] if c.name.startswith("pw-iw-")]
    assert len(pools) == 2 and all(c.replace and c.replace_mode == "delete-first" for c in pools)
    (cluster,) = by_type["gcp:container/cluster:Cluster"]
    assert not cluster.replace and "enableMultiNetworking" in cluster.properties
    added = {a.split("::")[-1] for a in diff.to_json()["added"]}
    assert {"pw-services-netparams-iw-data", "pw-services-network-iw-data"} <= added
    assert not diff.refused


@pytest.mark.slow
def test_turning_numa_awareness_on_updates_the_pool_in_place_and_rolls_its_nodes():
    diff = _diff(stack(tpuPools=[IW]), stack(tpuPools=[{**IW, "numaAware": True}]))
    pools = [c for c in diff.changed if c.name.startswith("pw-iw-")]
    assert len(pools) == 2
    for change in pools:
        assert not change.replace and change.nodes_recreated == ("nodeConfig.kubeletConfig",)
    assert not diff.refused


@pytest.mark.slow
def test_a_new_sub_slice_shape_replaces_the_kueue_topology_whose_levels_are_immutable():
    version = {**RAPID, "version": "1.36.0-gke.3712000"}
    old = dynamic(cluster=version)
    new = dynamic(cluster=version, workload={"dynamicSlice": {"topology": "2x4x4", "count": 2}})
    changes = {c.name: c for c in _diff(old, new).changed}
    topology = changes["pw-services-slice-topology"]
    assert topology.replace and topology.replace_mode == "delete-first"
    assert not any(c.replace for c in changes.values() if c.type == "gcp:container/nodePool:NodePool")


def test_the_topology_levels_rule_refuses_an_in_place_update():
    from pathways_gke import apply_rules, tokens

    old = {"spec": {"levels": [{"nodeLabel": "a"}, {"nodeLabel": "kubernetes.io/hostname"}]}}
    new = {"spec": {"levels": [{"nodeLabel": "a"}, {"nodeLabel": "b"}, {"nodeLabel": "kubernetes.io/hostname"}]}}
    (refusal,) = apply_rules.update_refusals(tokens.KUEUE_TOPOLOGY, old, new, ["spec.levels"])
    assert refusal.rule == "kueue-topology-levels" and "immutable" in refusal.world_rule.rule


def test_parallel_containers_on_a_pool_without_topology_report_the_topology_only():
    config = jax_on({"type": "tpu7x"}, parallelContainers=2)
    found = problems(config)
    assert "tpuPools[0].topology" in found and "workloads[0].parallelContainers" not in found


def test_a_standalone_workload_component_takes_the_dynamic_slice_as_placement_args():
    """The cluster's `tpuPools` output of a dynamic-slicing group says dynamic_slice: true; a workload component
    given those args (with its own slice shape) renders the same annotated workers as the stack does."""
    from pathways_gke.config.placement import placement_problems
    from pathways_gke.config.workloads import parse_workload

    cfg = parse_stack(dynamic())
    group = Placement.for_pool(cfg, cfg.tpu_pools[0]).args()
    assert group["dynamic_slice"] is True and "placement_policy" not in group
    placement, found = placement_problems({**group, "tpu_topology": "4x4x16", "slices": 2}, (), tpu_required=True)
    assert found == [] and placement is not None
    workload = parse_workload({**TRAIN, "dynamicSlice": None})
    pod = {rj["name"]: rj for rj in objects_for(workload, placement).primary["spec"]["replicatedJobs"]}
    annotations = pod["worker"]["template"]["spec"]["template"]["metadata"]["annotations"]
    assert annotations["cloud.google.com/gke-tpu-slice-topology"] == "4x4x16"
    _, refused = placement_problems({**group, "queue_name": None}, (), tpu_required=True)
    assert [p.path for p in refused] == ["dynamic_slice"]


def test_a_network_of_another_project_is_named_by_its_full_path():
    nets = [{"network": "iw-dcn", "subnetwork": "iw-dcn-east5", "project": "acme-net-host"}]
    cfg = parse_stack(stack(cluster={"name": "pw", "location": "us-east5", "additionalNetworks": nets},
                            tpuPools=[IW]))
    (spec, _) = tpu_pool_specs(ClusterFacts.of(cfg), cfg.tpu_pools[0], component="pw", cluster="C",
                               service_account="SA", policy_name="P")
    assert spec.args["network_config"]["additional_node_network_configs"] == [{
        "network": "projects/acme-net-host/global/networks/iw-dcn",
        "subnetwork": "projects/acme-net-host/regions/us-east5/subnetworks/iw-dcn-east5"}]
    params = dict(network_objects(cfg))["netparams-iw-dcn"]["spec"]
    assert (params["vpc"], params["vpcSubnet"]) == ("projects/acme-net-host/global/networks/iw-dcn",
                                                    "projects/acme-net-host/regions/us-east5/subnetworks/iw-dcn-east5")


def test_multislice_dynamic_slices_need_jobset_0_10_1():
    found = problems(dynamic(jobset={"version": "v0.9.0"}))
    assert "v0.10.1" in found["jobset.version"]
    parse_stack(dynamic(jobset={"version": "v0.9.0"}, workload={"dynamicSlice": {"topology": "4x4x16"}}))


def test_an_adopted_cluster_is_told_to_enable_the_slice_controller():
    from pathways_gke.gke.cluster_spec import api_and_role_notes

    adopted = parse_stack(dynamic(cluster={"name": "pw", "location": "us-east5", "create": False}))
    assert any("--enable-slice-controller" in note for note in api_and_role_notes(adopted))
    assert not any("slice controller" in note for note in api_and_role_notes(parse_stack(dynamic())))


def test_a_serving_component_refuses_a_dynamic_slice_placement():
    from pathways_gke.workloads.serving import validate_args

    cfg = parse_stack(dynamic())
    group = Placement.for_pool(cfg, cfg.tpu_pools[0]).args()
    serve = {"name": "chat", "mode": "serving", "image": IMAGE, "command": "python3 serve.py",
             "serving": {"port": 8000}, "pathways": PATHWAYS}
    with pytest.raises(ConfigError) as caught:
        validate_args({**group, "workload": serve})
    assert "dynamic_slice" in [p.path for p in caught.value.problems]


def test_the_stack_checks_a_workload_against_its_dynamic_slice_not_the_sub_blocks():
    """The JaxWorkload component sees the dynamic slice; so must the stack's own checks (GKE Multislice needs
    multi-host slices: ten single-host 2x2x1 sub-slices are refused by both, at the same key)."""
    config = dynamic(pool={"slices": 1}, workload={"runtime": "jax", "dynamicSlice": {"topology": "2x2x1",
                                                                                       "count": 10}})
    config["pathways-gke:workloads"][0].pop("pathways")
    assert "single-host slices" in problems(config)["workloads[0].tpuPool"]
