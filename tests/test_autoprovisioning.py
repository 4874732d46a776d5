"""Node auto-provisioning (`cluster.autoprovisioning`) renders the cluster's clusterAutoscaling as GKE requires it
(XPK 1.16 core/nap.py, terraform-provider-google google_container_cluster cluster_autoscaling): cpu and memory
limits always, a chip limit per TPU accelerator, provisioned nodes as the stack's node service account (never the
Compute Engine default) in the TPU zones."""

import pytest

from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.gke.cluster_spec import cluster_args
from pathways_gke.plan import plan_config
from tests.support.stacks import merged

NAP = {"enabled": True, "tpuChipsMax": {"v6e": 64}}


def problems(config):
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return {p.path: p.message for p in caught.value.problems}


@pytest.mark.slow
def test_autoprovisioning_renders_chip_limit_node_account_and_tpu_zone():
    plan = plan_config(merged("dev", cluster={"autoprovisioning": NAP}), stack="dev")
    cluster = plan.named("pw-dev-cluster").inputs
    autoscaling = cluster["clusterAutoscaling"]
    assert autoscaling["enabled"] is True
    limits = {limit["resourceType"]: limit["maximum"] for limit in autoscaling["resourceLimits"]}
    assert limits == {"cpu": 1_000_000, "memory": 10_000_000, "tpu-v6e-slice": 64}
    defaults = autoscaling["autoProvisioningDefaults"]
    assert defaults["serviceAccount"] == cluster["nodeConfig"]["serviceAccount"]  # the stack's node account
    assert "compute@developer" not in str(defaults["serviceAccount"])
    assert defaults["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert autoscaling["autoProvisioningLocations"] == ["us-east5-b"]  # the TPU pool group's zone


def test_limits_and_locations_as_given():
    config = parse_stack(merged("dev", cluster={"autoprovisioning": {
        **NAP, "tpuChipsMax": {"tpu-v5p-slice": 32, "v6e": 16}, "cpuMax": 512, "memoryMaxGb": 4096,
        "locations": ["us-east5-a", "us-east5-c"]}}))
    args = cluster_args(config, "nodes@acme-ml-dev.iam.gserviceaccount.com")["cluster_autoscaling"]
    assert args["resource_limits"] == [
        {"resource_type": "cpu", "minimum": 0, "maximum": 512},
        {"resource_type": "memory", "minimum": 0, "maximum": 4096},
        {"resource_type": "tpu-v5p-slice", "minimum": 0, "maximum": 32},
        {"resource_type": "tpu-v6e-slice", "minimum": 0, "maximum": 16},
    ]
    assert args["auto_provisioning_locations"] == ["us-east5-a", "us-east5-c"]
    assert args["auto_provisioning_defaults"]["service_account"] == "nodes@acme-ml-dev.iam.gserviceaccount.com"


def test_off_by_default_and_no_cluster_autoscaling():
    assert "cluster_autoscaling" not in cluster_args(parse_stack(merged("dev")), "sa")


def test_the_compute_default_account_is_refused():
    found = problems(merged("dev", cluster={"autoprovisioning": NAP,
                                            "nodeServiceAccount": {"create": False}}))
    assert "Compute Engine default" in found["cluster.autoprovisioning.enabled"]


def test_unknown_accelerator_and_foreign_zone_are_refused():
    found = problems(merged("dev", cluster={"autoprovisioning": {"enabled": True, "tpuChipsMax": {"h100": 8}}}))
    assert any("'h100' is not a TPU accelerator" in m for m in found.values())
    found = problems(merged("dev", cluster={"autoprovisioning": {**NAP, "locations": ["us-central1-a"]}}))
    assert "region us-central1" in found["cluster.autoprovisioning.locations[0]"]


def test_keys_without_enabled_are_refused_not_ignored():
    found = problems(merged("dev", cluster={"autoprovisioning": {"tpuChipsMax": {"v6e": 8}}}))
    assert "enabled is false" in found["cluster.autoprovisioning.tpuChipsMax"]
