"""Every example under examples/ plans offline and does what its README promises."""

import pytest

from tests.support.examples import RecordingMocks, plan_example

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"


# --- examples/platform-python: own providers, adopted cluster --------------------------------------


@pytest.fixture(scope="module")
def platform():
    recording = RecordingMocks()
    return plan_example("platform-python", "shared", mocks=recording.mocks), recording.calls


def test_platform_adopts_the_cluster_instead_of_creating_one(platform):
    plan, calls = platform
    created = [c.name for c in plan.of_type(CLUSTER) if not c.read]
    assert created == []
    adopted = plan.named("ml-shared-cluster")
    assert adopted.read and adopted.options["id"] == "projects/acme-ml-shared/locations/us-east5/clusters/ml-shared"
    pools = plan.of_type(NODE_POOL)
    assert [p.name for p in pools] == ["ml-shared-cpu", "ml-shared-v5p-0", "ml-shared-v5p-1"]
    assert {p.inputs["cluster"] for p in pools} == {"ml-shared"}
    assert [p.inputs["name"] for p in pools] == ["cpu-np", "ml-shared-v5p-0", "ml-shared-v5p-1"]


def test_platform_children_use_the_platforms_providers(platform):
    plan, calls = platform
    gcp_provider = plan.named("platform-gcp").urn
    k8s_provider = plan.named("platform-k8s").urn
    gcp_children = [r for r in plan.resources if r.custom and r.type.startswith("gcp:")]
    assert gcp_children and {r.options["provider"] for r in gcp_children} == {gcp_provider}
    k8s_children = [r for r in plan.resources if r.custom and r.type.startswith("kubernetes:")]
    assert {r.options["provider"] for r in k8s_children} <= {k8s_provider}
    # the component made no Kubernetes provider of its own
    assert [r.name for r in plan.of_type("pulumi:providers:kubernetes")] == ["platform-k8s"]
    # reading the adopted cluster goes through the platform's GCP identity too
    reads = [r for r in plan.of_type(CLUSTER) if r.read]
    assert {r.name for r in reads} == {"ml-shared-cluster", "shared-cluster"}
    assert {r.options["provider"] for r in reads} == {gcp_provider}


def test_platform_component_registers_the_providers_it_was_given(platform):
    plan, _ = platform
    component = plan.named("ml-shared")
    assert component.type == "pathways-gke:index:PathwaysCluster"
    assert component.outputs["cpuPoolName"] == "cpu-np"
    assert component.outputs["tpuPoolNames"] == {"v5p": ["ml-shared-v5p-0", "ml-shared-v5p-1"]}
