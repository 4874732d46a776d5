"""Two PathwaysClusters in one program: no two resources, including the objects yaml/v2 will expand from the
controller manifests, may share a URN (the engine refuses "Duplicate resource URN").

URNs carry the parents' types, not their names, so every child name must differ per component instance. The
ConfigFile children are not registered under the mock engine (the kubernetes provider expands them), so they
are predicted from the manifests the plan passes (`file` + `resourcePrefix`), the way
pulumi-kubernetes provider/pkg/provider/yaml/v2/yaml.go names them.
"""

from collections import Counter
from pathlib import Path

import pytest
import yaml

from pathways_gke import PathwaysCluster
from pathways_gke.addons.install import child_resource, manifest_objects, predicted_child_urns
from pathways_gke.plan.engine import Plan
from pathways_gke.releases import RELEASES
from tests.support.examples import plan_example
from tests.support.offline import run

FIXTURES = Path(__file__).parent / "fixtures"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"


def cluster_args(name: str, location: str, zone: str) -> dict:
    return {
        "project": "acme-ml-dev",
        "cluster": {"name": name, "location": location},
        "cpu_pool": {"machine_type": "n2-standard-64", "min_nodes": 1, "max_nodes": 2},
        "tpu_pools": [{"name": "main", "type": "v6e", "topology": "2x4", "slices": 1, "zone": zone,
                       "capacity": "spot"}],
        "jobset": {"version": "v0.10.1", "manifest": str(FIXTURES / "jobset-manifests.yaml")},
        "kueue": {"enabled": True, "version": "v0.17.1", "manifest": str(FIXTURES / "kueue-manifests.yaml")},
        "workloads": [{"name": "train", "tpu_pool": "main", "image": "us-docker.pkg.dev/acme/train:2026-11",
                       "command": ["python3", "train.py"],
                       "pathways": {"version": "jax-0.9.2", "gcs_scratch": "gs://acme-pw/tmp"}}],
        "namespace": "ml",
    }


def two_clusters() -> None:
    PathwaysCluster("east", cluster_args("pw-east", "us-east5", "us-east5-b"))
    PathwaysCluster("west", cluster_args("pw-west", "us-west4", "us-west4-a"))


@pytest.fixture(scope="module")
def plan() -> Plan:
    return run(two_clusters, stack="dev", project="platform")


# the objects of each pinned release manifest (names and kinds), standing in for the URL offline: the fixtures are
# the v0.10.1 / v0.17.1 manifests; the duplicate-URN check reads only the objects' names and kinds, so they stand in
# for the default releases' URLs too
RELEASE_OBJECTS = {
    "https://github.com/kubernetes-sigs/jobset/releases/download/v0.10.1/manifests.yaml": "jobset-manifests.yaml",
    "https://github.com/kubernetes-sigs/kueue/releases/download/v0.17.1/manifests.yaml": "kueue-manifests.yaml",
    RELEASES["jobset"].url.format(version=RELEASES["jobset"].default): "jobset-manifests.yaml",
    RELEASES["kueue"].url.format(version=RELEASES["kueue"].default): "kueue-manifests.yaml",
}


def manifest_of(file: str) -> list[dict]:
    path = FIXTURES / RELEASE_OBJECTS[file] if file in RELEASE_OBJECTS else Path(file)
    return manifest_objects(list(yaml.safe_load_all(path.read_text())))


def expanded_urns(plan: Plan) -> list[str]:
    """The URNs yaml/v2 will register for every ConfigFile of the plan (local manifests read here)."""
    out = []
    for install in plan.of_type(CONFIG_FILE):
        out += predicted_child_urns(install.urn, manifest_of(install.inputs["file"]), install.inputs["resourcePrefix"])
    return out


def duplicates(urns: list[str]) -> list[str]:
    return sorted(u for u, n in Counter(urns).items() if n > 1)


def test_two_clusters_register_no_duplicate_urn_even_after_yaml_v2_expands_the_installs(plan):
    registered = [r.urn for r in plan.resources]
    expanded = expanded_urns(plan)
    assert len(expanded) == 2 * (11 + 4)  # every manifest object of both installs of both clusters
    assert duplicates(registered + expanded) == []


def test_the_prefix_is_what_keeps_them_apart(plan):
    """With one fixed prefix (as before) the same prediction finds the collisions `pulumi up` would hit."""
    fixed = []
    for install in plan.of_type(CONFIG_FILE):
        objects = manifest_objects(list(yaml.safe_load_all(Path(install.inputs["file"]).read_text())))
        fixed += predicted_child_urns(install.urn, objects, install.urn.rsplit("-", 1)[-1])
    assert len(duplicates(fixed)) == 15


def test_yaml_v2_child_urns_are_predicted_exactly(plan):
    install = plan.named("east-services-jobset")
    assert install.inputs["resourcePrefix"] == "east-services-jobset"
    urns = set(expanded_urns(plan))
    chain = ("pathways-gke:index:PathwaysCluster$pathways-gke:index:ClusterServices$kubernetes:yaml/v2:ConfigFile")
    assert (f"urn:pulumi:dev::platform::{chain}$kubernetes:apps/v1:Deployment::"
            "east-services-jobset:jobset-system/jobset-controller-manager") in urns
    assert (f"urn:pulumi:dev::platform::{chain}$kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::"
            "west-services-jobset:jobsets.jobset.x-k8s.io") in urns


def test_child_names_follow_yaml_v2():
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "n"}}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "c"}}
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}}
    assert child_resource(deployment, "p") == ("kubernetes:apps/v1:Deployment", "p:n/d")
    assert child_resource(crd, "p") == ("kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition", "p:c")
    # a namespaced kind without a namespace lands in the provider's default namespace
    assert child_resource(service, "p") == ("kubernetes:core/v1:Service", "p:default/s")
    assert child_resource(service, "") == ("kubernetes:core/v1:Service", "default/s")


def test_every_component_child_name_starts_with_its_component_name(plan):
    """The rule behind uniqueness: a child's name is derived from its component instance's name."""
    by_urn = plan.by_urn()
    for resource in plan.resources:
        parent = by_urn.get(resource.parent) if resource.parent else None
        if parent is not None and parent.type.startswith("pathways-gke:"):
            assert resource.name.startswith(parent.name + "-"), (resource.name, parent.name)


@pytest.mark.slow
def test_the_two_cluster_example_plans_without_a_duplicate_urn():
    """examples/two-clusters: a training and a serving cluster on a VPC the program creates."""
    plan = plan_example("two-clusters", "shared")
    installs = plan.of_type(CONFIG_FILE)
    assert sorted(i.name for i in installs) == ["serve-services-jobset", "train-services-jobset",
                                                "train-services-kueue"]
    expanded = expanded_urns(plan)
    assert len(expanded) == 11 + 11 + 4
    assert duplicates([r.urn for r in plan.resources] + expanded) == []
    # both clusters sit on the VPC created next to them (unknown until it exists)
    vpc = plan.named("ml-vpc").urn
    for name in ("train-cluster", "serve-cluster"):
        assert plan.named(name).inputs["network"] == "<computed>" and vpc in plan.named(name).depends_on
