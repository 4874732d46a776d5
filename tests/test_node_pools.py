"""Node pools and the cluster carry exactly the settings GKE prescribes for TPU slices and the Pathways CPU pool
(https://cloud.google.com/kubernetes-engine/docs/concepts/tpus,
https://cloud.google.com/kubernetes-engine/docs/how-to/tpus)."""

import pytest

from pathways_gke.config import parse_stack
from pathways_gke.config.model import ClusterFacts
from pathways_gke.errors import ConfigError
from pathways_gke.gke.cluster_spec import cluster_args
from pathways_gke.gke.nodepools import cpu_pool_spec, tpu_pool_specs
from pathways_gke.gke_rules import SERVER_FILLED_TPU_FIELDS
from pathways_gke.plan import plan_config
from tests.support.stacks import merged, parsed, stack


def stack_with(pool_changes=None, **sections):
    """The dev stack with these keys of its pool group changed and these sections replaced."""
    return merged(stack("dev", **sections), tpuPools=[pool_changes or {}])


def specs(pool_changes=None, **sections):
    config = parse_stack(stack_with(pool_changes, **sections))
    return tpu_pool_specs(ClusterFacts.of(config), config.tpu_pools[0], component="pw", cluster="CLUSTER", service_account="SA",
                          policy_name="POLICY")


def test_dev_slice_pool_as_the_plan_sends_it(stack_plans):
    pool = stack_plans("dev").named("pw-dev-main-0").inputs
    assert pool["nodeConfig"]["machineType"] == "ct6e-standard-4t"
    assert pool["nodeCount"] == 2  # v6e 2x4 on 4-chip hosts
    assert pool["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "2x4"}  # v6e: the classic placement
    assert pool["nodeLocations"] == ["us-east5-b"]
    assert pool["location"] == "us-east5"
    assert pool["nodeConfig"]["spot"] is True
    assert pool["nodeConfig"]["reservationAffinity"] == {"consumeReservationType": "NO_RESERVATION"}
    assert pool["maxPodsPerNode"] == 15
    assert pool["networkConfig"] == {"acceleratorNetworkProfile": "auto"}
    assert pool["nodeConfig"]["labels"]["cloud.google.com/gke-networking-dra-driver"] == "true"
    assert pool["nodeConfig"]["taints"] == [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert pool["nodeConfig"]["gvnic"] == {"enabled": True}
    assert pool["nodeConfig"]["workloadMetadataConfig"] == {"mode": "GKE_METADATA"}
    assert pool["nodeConfig"]["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert pool["upgradeSettings"] == {"strategy": "SURGE", "maxSurge": 0, "maxUnavailable": 1}


def test_prod_pools_consume_the_reservation_one_pool_per_slice(stack_plans):
    pools = [r for r in stack_plans("prod").of_type("gcp:container/nodePool:NodePool") if r.name != "pw-prod-cpu"]
    assert len(pools) == 4
    for pool in pools:
        inputs = pool.inputs
        assert inputs["nodeConfig"]["machineType"] == "ct6e-standard-4t"
        assert inputs["nodeCount"] == 4
        assert inputs["placementPolicy"] == {"type": "COMPACT", "tpuTopology": "4x4"}
        assert inputs["nodeConfig"]["reservationAffinity"] == {
            "consumeReservationType": "SPECIFIC_RESERVATION",
            "key": "compute.googleapis.com/reservation-name",
            "values": ["projects/acme-ml-prod/reservations/acme-v6e-east5"],
        }
        assert "spot" not in inputs["nodeConfig"]
        assert pool.options["deleteBeforeReplace"] is True
        # static slices: the size is ours, drift must show; only the fields GKE fills in are ignored
        assert pool.options["ignoreChanges"] == sorted(SERVER_FILLED_TPU_FIELDS)


def test_single_host_slice_has_no_placement_policy():
    (spec,) = specs({"topology": "2x2"})
    assert spec.args["node_count"] == 1
    assert "placement_policy" not in spec.args and "max_pods_per_node" not in spec.args


def test_eight_chip_host_is_a_single_host_2x4():
    (spec,) = specs({"topology": "2x4", "machineType": "ct6e-standard-8t"})
    assert spec.args["node_config"]["machine_type"] == "ct6e-standard-8t"
    assert spec.args["node_count"] == 1 and "placement_policy" not in spec.args


def test_tpu7x_multi_host_uses_the_workload_policy_alone():
    """GKE Ironwood page / xpk PR #676: a COMPACT group placement with a workload policy fails the MIG ("placement
    policy is not supported. Use workload policy instead"); the required type is sent empty (vllm ci-infra #547)."""
    (spec,) = specs({"type": "tpu7x", "topology": "2x2x2", "capacity": "on-demand"})
    assert spec.args["placement_policy"] == {"type": "", "policy_name": "POLICY"}
    # GKE stores no type and the topology it derives from the policy: neither may plan a replacement
    assert {"placementPolicy.type", "placementPolicy.tpuTopology"} <= set(spec.ignore_changes)
    assert "network_config" not in spec.args  # the profile is opt-in on tpu7x


@pytest.mark.slow
def test_tpu7x_plan_creates_one_high_throughput_policy_per_group():
    cfg = stack_with({"type": "tpu7x", "topology": "2x2x2", "slices": 2, "capacity": "on-demand"})
    plan = plan_config(cfg, stack="t7")
    (policy,) = plan.of_type("gcp:compute/resourcePolicy:ResourcePolicy")
    assert policy.inputs["workloadPolicy"] == {"type": "HIGH_THROUGHPUT", "acceleratorTopology": "2x2x2"}
    assert policy.inputs["region"] == "us-east5"
    for name in ("pw-dev-main-0", "pw-dev-main-1"):
        pool = plan.named(name)
        assert policy.urn in pool.depends_on
        assert pool.inputs["placementPolicy"]["policyName"] == policy.inputs["name"]


def test_on_demand_pool_sets_no_capacity_fields():
    (spec,) = specs({"capacity": "on-demand"})
    config = spec.args["node_config"]
    assert not {"spot", "flex_start", "reservation_affinity"} & set(config)


def test_flex_start_pool_scales_the_whole_slice_from_zero():
    (spec,) = specs({"capacity": "flex-start", "maxRunDuration": "24h"})
    args = spec.args
    assert args["node_config"]["flex_start"] is True
    assert args["node_config"]["max_run_duration"] == "86400s"
    assert args["node_config"]["reservation_affinity"] == {"consume_reservation_type": "NO_RESERVATION"}
    assert args["management"]["auto_repair"] is False
    assert args["autoscaling"] == {"min_node_count": 0, "max_node_count": 2, "location_policy": "ANY"}
    assert args["initial_node_count"] == 0 and "node_count" not in args
    assert set(spec.ignore_changes) >= {"nodeCount"}


def test_queued_pool_is_built_as_gkes_recipe():
    """GKE provisioningrequest doc / XPK / CTK: --no-enable-autorepair, autoscaling from 0, --location-policy=ANY,
    --reservation-affinity=none, and --flex-start with --enable-queued-provisioning (auto-repair would re-create a
    node outside its ProvisioningRequest)."""
    (spec,) = specs({"capacity": "queued"}, kueue={"enabled": True})
    args = spec.args
    assert args["queued_provisioning"] == {"enabled": True}
    assert args["node_config"]["labels"]["cloud.google.com/gke-queued"] == "true"
    assert args["management"]["auto_repair"] is False
    assert args["autoscaling"] == {"min_node_count": 0, "max_node_count": 2, "location_policy": "ANY"}
    assert args["initial_node_count"] == 0 and "node_count" not in args
    assert args["node_config"]["reservation_affinity"] == {"consume_reservation_type": "NO_RESERVATION"}
    assert args["node_config"]["flex_start"] is True
    assert "upgrade_settings" not in args


def test_shared_reservation_block_path():
    (spec,) = specs({"capacity": "reservation", "reservation": {"name": "r1", "project": "shared-res",
                                                                "block": "b1", "subBlock": "s1"}})
    assert spec.args["node_config"]["reservation_affinity"]["values"] == [
        "projects/shared-res/reservations/r1/reservationBlocks/b1/reservationSubBlocks/s1"]


def test_cpu_pool_is_sized_for_the_head_and_autoscaled():
    spec = cpu_pool_spec(parsed("dev"), component="pw", cluster="CLUSTER", service_account="SA")
    assert spec.args["name"] == "cpu-np"
    assert spec.args["node_config"]["machine_type"] == "n2-standard-64"
    assert spec.args["autoscaling"] == {"min_node_count": 1, "max_node_count": 2, "location_policy": "BALANCED"}
    assert spec.args["node_locations"] == ["us-east5-b"]  # beside the slices
    assert "taints" not in spec.args["node_config"]  # the head has no tolerations
    assert set(spec.ignore_changes) == {"nodeCount", "initialNodeCount"}


def test_cluster_is_secure_by_default():
    args = cluster_args(parsed("dev"))
    assert args["remove_default_node_pool"] is True
    assert args["workload_identity_config"] == {"workload_pool": "acme-ml-dev.svc.id.goog"}
    assert args["addons_config"]["gcs_fuse_csi_driver_config"] == {"enabled": True}
    assert args["datapath_provider"] == "ADVANCED_DATAPATH"
    assert args["release_channel"] == {"channel": "REGULAR"}
    assert "node_pool" not in args and "node_pools" not in args


def test_adopting_an_existing_cluster_reads_it_and_creates_only_pools():
    plan = plan_config(stack("dev", cluster={"name": "pw-dev", "location": "us-east5", "create": False}), stack="adopt")
    (existing,) = plan.of_type("gcp:container/cluster:Cluster")
    assert existing.read and existing.options["id"] == "projects/acme-ml-dev/locations/us-east5/clusters/pw-dev"
    pools = plan.of_type("gcp:container/nodePool:NodePool")
    assert {p.inputs["cluster"] for p in pools} == {"pw-dev"}
    assert plan.named("pw-dev-kubernetes").inputs["kubeconfig"] == "<secret>"


@pytest.mark.slow
def test_existing_node_service_account_is_used_as_is():
    cfg = merged("dev", cluster={"nodeServiceAccount": {"email": "gke-nodes@acme-ml-dev.iam.gserviceaccount.com"}})
    plan = plan_config(cfg, stack="sa")
    assert not plan.of_type("gcp:serviceaccount/account:Account")
    assert plan.named("pw-dev-cpu").inputs["nodeConfig"]["serviceAccount"] == "gke-nodes@acme-ml-dev.iam.gserviceaccount.com"


def test_private_cluster_opens_the_webhook_port_to_its_control_plane_and_workloads_wait_for_it():
    plan = plan_config(merged("dev", cluster={"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"}),
                       stack="private")
    assert plan.named("pw-dev-cluster").inputs["privateClusterConfig"] == {
        "enablePrivateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"}
    firewall = plan.named("pw-dev-webhooks")
    assert firewall.inputs["sourceRanges"] == ["172.16.0.32/28"]
    assert firewall.inputs["allows"] == [{"protocol": "tcp", "ports": ["9443"]}]  # dev installs JobSet only
    assert firewall.inputs["direction"] == "INGRESS" and firewall.inputs["network"] == "default"
    assert firewall.urn in plan.named("pw-dev-train-jobset").depends_on


def test_public_clusters_get_no_webhook_firewall(stack_plans):
    assert not stack_plans("dev").of_type("gcp:compute/firewall:Firewall")


@pytest.mark.parametrize("cluster,path,fragment", [
    ({"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.0/24"}, "cluster.masterIpv4CidrBlock", "private /28"),
    ({"privateNodes": True, "masterIpv4CidrBlock": "8.8.8.0/28"}, "cluster.masterIpv4CidrBlock", "private /28"),
    ({"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.x"}, "cluster.masterIpv4CidrBlock", "IPv4 CIDR"),
    ({"masterIpv4CidrBlock": "172.16.0.32/28"}, "cluster.masterIpv4CidrBlock", "private clusters only"),
])
def test_bad_control_plane_ranges_are_refused(cluster, path, fragment):
    cfg = merged("dev", cluster=cluster)
    with pytest.raises(ConfigError) as caught:
        parse_stack(cfg)
    assert any(p.path == path and fragment in str(p) for p in caught.value.problems), caught.value.render()
