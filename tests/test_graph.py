"""The resource graph a user gets from a stack: inventory, parents, dependencies, providers, options."""

import pytest

from tests.conftest import STACKS

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"
K8S_PROVIDER = "pulumi:providers:kubernetes"


def test_dev_inventory(stack_plans):
    plan = stack_plans("dev")
    names = {r.name for r in plan.resources}
    assert {"pw-dev", "pw-dev-cluster", "pw-dev-cpu", "pw-dev-main", "pw-dev-main-0", "pw-dev-kubernetes",
            "pw-dev-node-sa"} <= names
    assert [r.name for r in plan.of_type(NODE_POOL)] == ["pw-dev-cpu", "pw-dev-main-0"]
    assert len(plan.of_type(CLUSTER)) == 1


def test_one_node_pool_per_slice_under_its_group(stack_plans):
    plan = stack_plans("prod")
    group = plan.named("pw-prod-train")
    assert group.type == "pathways-gke:index:TpuSliceGroup"
    pools = [r for r in plan.of_type(NODE_POOL) if r.parent == group.urn]
    assert [p.inputs["name"] for p in pools] == [f"pw-prod-train-{i}" for i in range(4)]


@pytest.mark.parametrize("stack", STACKS)
def test_every_child_has_a_parent_in_the_component_tree(stack, stack_plans):
    plan = stack_plans(stack)
    urns = plan.by_urn()
    roots = [r for r in plan.resources if r.parent is None]
    assert [r.type for r in roots] == ["pathways-gke:index:PathwaysCluster"]
    for r in plan.resources:
        if r.parent is not None:
            assert r.parent in urns, f"{r.name} has an unknown parent"
            assert r.urn.split("::")[2].startswith(urns[r.parent].urn.split("::")[2] + "$")


def test_node_pools_depend_on_the_cluster_and_the_node_service_account(stack_plans):
    plan = stack_plans("dev")
    cluster, sa = plan.named("pw-dev-cluster").urn, plan.named("pw-dev-node-sa").urn
    for pool in plan.of_type(NODE_POOL):
        assert cluster in pool.depends_on and sa in pool.depends_on
        assert pool.inputs["nodeConfig"]["serviceAccount"] == "<computed>"  # the new SA's email


def test_tpu_pools_never_depend_on_each_other_or_on_the_cpu_pool(stack_plans):
    plan = stack_plans("prod")
    pools = {p.urn for p in plan.of_type(NODE_POOL)}
    for pool in plan.of_type(NODE_POOL):
        assert not (set(pool.depends_on) & pools), f"{pool.name} waits for another pool"


def test_kubernetes_provider_is_built_from_the_cluster_with_an_identity_per_cluster_instance(stack_plans):
    """clusterIdentifier reads the cluster's CA certificate (unknown before the cluster exists): a re-created
    cluster replaces the provider and its objects (gke/cluster_spec.py cluster_identifier)."""
    plan = stack_plans("dev")
    provider = plan.named("pw-dev-kubernetes")
    assert provider.type == K8S_PROVIDER
    assert provider.inputs["clusterIdentifier"] == "<computed>"
    assert plan.named("pw-dev-cluster").urn in provider.property_dependencies["clusterIdentifier"]
    assert provider.inputs["kubeconfig"] == "<secret>"
    assert plan.named("pw-dev-cluster").urn in provider.depends_on


def test_kubernetes_children_use_the_cluster_provider(stack_plans):
    plan = stack_plans("prod")
    provider = plan.named("pw-prod-kubernetes").urn
    k8s = [r for r in plan.resources if r.type.startswith("kubernetes:") and r.custom]
    for r in k8s:
        assert r.options["provider"] == provider, f"{r.name} does not use the cluster's provider"


def test_gcp_children_use_the_default_or_inherited_gcp_provider(stack_plans):
    plan = stack_plans("dev")
    for r in plan.resources:
        if r.type.startswith("gcp:"):
            assert r.options["provider"] in (None, "") or r.options["provider"].split("::")[2].endswith(
                "pulumi:providers:gcp")


def test_production_protects_cluster_and_slices_dev_does_not(stack_plans):
    prod, dev = stack_plans("prod"), stack_plans("dev")
    assert prod.named("pw-prod-cluster").options["protect"] is True
    assert prod.named("pw-prod-cluster").inputs["deletionProtection"] is True
    assert all(p.options["protect"] for p in prod.of_type(NODE_POOL))
    assert dev.named("pw-dev-cluster").options["protect"] is False
    assert dev.named("pw-dev-cluster").inputs["deletionProtection"] is False


def test_component_outputs(stack_plans):
    plan = stack_plans("prod")
    outputs = plan.named("pw-prod").outputs
    assert outputs["clusterName"] == "pw-prod"
    assert outputs["endpoint"] == "<computed>"
    assert outputs["kubeconfig"] == "<secret>"
    assert outputs["cpuPoolName"] == "cpu-np"
    assert outputs["tpuPoolNames"] == {"train": [f"pw-prod-train-{i}" for i in range(4)]}
    assert plan.outputs["kubeconfig"] == "<secret>"
