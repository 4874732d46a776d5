"""Cluster services as data: install sources, transforms, Kueue objects and quotas, priority ladder."""

from __future__ import annotations

from fractions import Fraction

import pulumi
import pytest

from pathways_gke import tokens
from pathways_gke.addons import services_spec
from pathways_gke.addons.install import (
    install_resource_name, install_source, is_protected_crd, pin_to_node_pool,
    resource_prefix,
)
from pathways_gke.addons.kueue import (
    COVERED_RESOURCES, HOST_RESOURCES_NOT_LIMITED, kueue_objects, tpu_chips,
)
from pathways_gke.addons.priority import PRIORITY_LADDER
from pathways_gke.releases import RELEASES, controller_image_tags, manifest_problems
from pathways_gke.catalog import CpuMachine, gke_allocatable
from pathways_gke.naming import JOBSET_CRD, NODE_POOL_LABEL, TPU_GROUP_LABEL
from pathways_gke.addons.install import PATCH_FORCE_ANNOTATION, with_force_apply
from pathways_gke.services import install_transforms, keep_on_node_pool, protect_crds
from pathways_gke.naming import LOCAL_QUEUE_NAME
from tests.support.stacks import QUEUED_POOLS, parsed
from tests.support.crd import kueue_schema_errors

RELEASE_URL = "https://github.com/kubernetes-sigs/jobset/releases/download/{}/manifests.yaml"


# --- where the controllers come from -----------------------------------------------------------

def test_jobset_installs_the_pinned_release_url_by_default():
    source = services_spec(parsed("dev")).jobset
    assert (source.version, source.origin, source.file) == ("v0.12.0", "release", RELEASE_URL.format("v0.12.0"))
    # a stack without jobset.version gets the one default, releases.py's
    assert services_spec(parsed("dev", jobset={})).jobset.version == RELEASES["jobset"].default == "v0.12.0"


def test_a_version_bump_changes_only_the_url_so_it_is_an_update_not_a_replace():
    old, new = install_source("jobset", "v0.10.1", None), install_source("jobset", "v0.12.0", None)
    assert new.file == RELEASE_URL.format("v0.12.0")
    # child URNs are <resource_prefix>:<namespace>/<name>: the prefix must not move with the version
    assert old.legacy_prefix == new.legacy_prefix == "jobset"
    assert resource_prefix(install_resource_name("pw-dev-services", "jobset")) == "pw-dev-services-jobset"


def test_a_local_manifest_replaces_the_url_and_keeps_the_version_on_record(tmp_path):
    path = str(tmp_path / "jobset.yaml")
    (tmp_path / "jobset.yaml").write_text(MANIFEST.format(tag="v0.10.1"))
    spec = services_spec(parsed("dev", jobset={"version": "v0.10.1", "manifest": path}))
    assert (spec.jobset.file, spec.jobset.origin, spec.jobset.version) == (path, "manifest", "v0.10.1")
    assert spec.marker["data"]["jobset.source"] == path
    assert spec.marker["data"]["jobset.version"] == "v0.10.1"


def test_kueue_is_off_by_default_and_pinned_when_on():
    assert services_spec(parsed("dev")).kueue is None
    kueue = services_spec(parsed("prod")).kueue
    assert kueue is not None and kueue.file.endswith("/kueue/releases/download/v0.19.5/manifests.yaml")
    assert kueue.version == RELEASES["kueue"].default


# --- local manifests ----------------------------------------------------------------------------

MANIFEST = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: jobsets.jobset.x-k8s.io
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: jobset-controller-manager
spec:
  template:
    spec:
      containers:
      - image: registry.k8s.io/jobset/jobset:{tag}
        name: manager
"""


def test_a_local_manifest_must_exist(tmp_path):
    [message] = manifest_problems("jobset", "v0.10.1", "vendor/jobset.yaml", base=tmp_path)
    assert "is not an existing file" in message and RELEASE_URL.format("v0.10.1") in message


def test_a_local_manifest_matching_the_version_is_accepted(tmp_path):
    (tmp_path / "jobset.yaml").write_text(MANIFEST.format(tag="v0.10.1"))
    assert manifest_problems("jobset", "v0.10.1", "jobset.yaml", base=tmp_path) == []


def test_a_local_manifest_of_another_version_is_refused(tmp_path):
    (tmp_path / "jobset.yaml").write_text(MANIFEST.format(tag="v0.8.2"))
    [message] = manifest_problems("jobset", "v0.10.1", "jobset.yaml", base=tmp_path)
    assert "tagged v0.8.2" in message and "jobset.version is v0.10.1" in message


def test_a_file_that_is_not_the_release_manifest_is_refused(tmp_path):
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
    [message] = manifest_problems("jobset", "v0.10.1", "other.yaml", base=tmp_path)
    assert JOBSET_CRD in message


def test_mirrored_images_are_recognised_by_name_and_digests_are_not_version_checked():
    text = ("      - image: mirror.corp/k8s/jobset/jobset:v0.10.1\n"
            "        image: \"registry.k8s.io/jobset/jobset@sha256:" + "a" * 64 + "\"\n"
            "        image: registry.k8s.io/kueue/kueue:v0.17.1\n")
    assert controller_image_tags(text, "jobset") == ["v0.10.1", ""]
    assert controller_image_tags(text, "kueue") == ["v0.17.1"]


# --- transforms: controllers on the CPU pool, the JobSet CRD protected ---------------------------

DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "jobset-controller-manager", "namespace": "jobset-system"},
              "spec": {"template": {"spec": {"nodeSelector": {"kubernetes.io/os": "linux"},
                                             "containers": [{"name": "manager"}]}}}}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": JOBSET_CRD}, "spec": {}}


def test_controller_deployments_are_pinned_to_the_cpu_pool_keeping_their_selectors():
    pinned = pin_to_node_pool(tokens.DEPLOYMENT, DEPLOYMENT, "cpu-np")
    assert pinned["spec"]["template"]["spec"]["nodeSelector"] == {
        NODE_POOL_LABEL: "cpu-np", "kubernetes.io/os": "linux"}
    assert DEPLOYMENT["spec"]["template"]["spec"]["nodeSelector"] == {"kubernetes.io/os": "linux"}  # not mutated


def test_only_deployments_are_pinned():
    assert pin_to_node_pool("kubernetes:core/v1:Service", {"spec": {}}, "cpu-np") is None
    assert pin_to_node_pool(tokens.CRD, CRD, "cpu-np") is None


def test_the_pulumi_transform_pins_deployments_and_leaves_other_children_alone():
    transform = keep_on_node_pool("cpu-np")
    opts = pulumi.ResourceOptions()
    result = transform(pulumi.ResourceTransformArgs(True, tokens.DEPLOYMENT, "jobset:jobset-system/jobset-controller-manager",
                                                    DEPLOYMENT, opts))
    assert result is not None and result.props["spec"]["template"]["spec"]["nodeSelector"][NODE_POOL_LABEL] == "cpu-np"
    assert result.opts is opts
    assert transform(pulumi.ResourceTransformArgs(True, tokens.CRD, "jobset:jobsets.jobset.x-k8s.io", CRD, opts)) is None


def test_only_the_jobset_crd_is_a_protectable_crd():
    assert is_protected_crd(tokens.CRD, CRD, (JOBSET_CRD,))
    other = {**CRD, "metadata": {"name": "clusterqueues.kueue.x-k8s.io"}}
    assert not is_protected_crd(tokens.CRD, other, (JOBSET_CRD,))
    assert not is_protected_crd(tokens.DEPLOYMENT, DEPLOYMENT, (JOBSET_CRD,))


def apply_protect(protected: bool, type_: str, props: dict, parent_protect=None) -> bool:
    transform = protect_crds((JOBSET_CRD,), protected)
    result = transform(pulumi.ResourceTransformArgs(True, type_, "x", props,
                                                    pulumi.ResourceOptions(ignore_changes=["x"], protect=parent_protect)))
    assert result is not None and result.props is props and result.opts.ignore_changes == ["x"]
    return result.opts.protect


def test_the_jobset_crd_is_protected_exactly_where_the_cluster_is():
    assert apply_protect(True, tokens.CRD, CRD) is True
    # a dev stack (cluster not protected): `pulumi destroy` must not meet a protected CRD
    assert apply_protect(False, tokens.CRD, CRD) is False


def test_no_other_install_object_is_protected_even_under_a_protected_parent():
    other_crd = {**CRD, "metadata": {"name": "clusterqueues.kueue.x-k8s.io"}}
    for props, type_ in ((DEPLOYMENT, tokens.DEPLOYMENT), (other_crd, tokens.CRD)):
        assert apply_protect(True, type_, props, parent_protect=True) is False


# --- namespace, priority ladder, readiness marker ---------------------------------------------

def test_the_default_namespace_is_never_created():
    assert services_spec(parsed("dev")).namespace_object is None


def test_a_named_namespace_is_created():
    assert services_spec(parsed("prod")).namespace_object["metadata"]["name"] == "ml"


def test_priority_ladder_is_the_xpk_ctk_one():
    spec = services_spec(parsed("prod"))
    assert [(o["metadata"]["name"], o["value"]) for _, o in spec.priority_classes] == [
        ("very-low", 100), ("low", 250), ("medium", 500), ("high", 750), ("very-high", 1000)]
    assert all(o["globalDefault"] is False for _, o in spec.priority_classes)
    assert len(PRIORITY_LADDER) == 5


def test_priority_classes_exist_when_a_workload_names_one_even_without_kueue():
    dev = parsed("dev")
    assert services_spec(dev).priority_classes == ()
    workloads = [{**w.model_dump(by_alias=True, exclude_none=True), "priorityClass": "low"} for w in dev.workloads]
    assert len(services_spec(parsed("dev", workloads=workloads)).priority_classes) == 5


def test_the_readiness_marker_lives_in_the_workloads_namespace_and_records_versions():
    marker = services_spec(parsed("prod")).marker
    assert marker["metadata"]["namespace"] == "ml"
    sized = {k: v for k, v in marker["data"].items() if k.endswith(".resources")}
    assert sorted(sized) == ["jobset.resources", "kueue.resources"]  # tests/test_at_scale.py checks the values
    assert {k: v for k, v in marker["data"].items() if k not in sized} == {
        "jobset.source": RELEASE_URL.format("v0.12.0"), "jobset.version": "v0.12.0",
        "kueue.localQueue": LOCAL_QUEUE_NAME,
        "kueue.source": "https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.5/manifests.yaml",
        "kueue.version": "v0.19.5"}


# --- Kueue objects -------------------------------------------------------------------------------

def _objects(s):
    return dict(kueue_objects(s))


@pytest.mark.slow
@pytest.mark.needs_shared
@pytest.mark.parametrize("pools", [None, QUEUED_POOLS], ids=["prod", "prod+queued"])
def test_every_kueue_object_validates_against_both_kueue_crds(pools):
    s = parsed("prod", tpuPools=pools) if pools else parsed("prod")
    for suffix, obj in kueue_objects(s):
        assert kueue_schema_errors(obj) == {"v0.17.1": [], "v0.19.2": []}, suffix


def test_prod_has_flavors_queue_and_local_queue_in_order():
    assert [suffix for suffix, _ in kueue_objects(parsed("prod"))] == [
        "flavor-cpu", "flavor-tpu-train", "cluster-queue", "local-queue"]


def test_tpu_flavor_selects_its_group_and_tolerates_tpu_nodes():
    flavor = _objects(parsed("prod"))["flavor-tpu-train"]
    assert flavor["metadata"]["name"] == "pathways-tpu-train"
    assert flavor["spec"]["nodeLabels"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "4x4",
        TPU_GROUP_LABEL: "train"}
    assert flavor["spec"]["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]


def test_cpu_flavor_selects_the_cpu_pool():
    flavor = _objects(parsed("prod"))["flavor-cpu"]
    assert flavor["spec"] == {"nodeLabels": {NODE_POOL_LABEL: "cpu-np"}}


def test_local_queue_is_in_the_workloads_namespace_and_points_at_the_cluster_queue():
    lq = _objects(parsed("prod"))["local-queue"]
    assert (lq["metadata"]["name"], lq["metadata"]["namespace"]) == (LOCAL_QUEUE_NAME, "ml")
    assert lq["spec"] == {"clusterQueue": "pathways-cluster-queue"}


def _quotas(cq):
    [group] = cq["spec"]["resourceGroups"]
    assert group["coveredResources"] == list(COVERED_RESOURCES)
    return {f["name"]: {r["name"]: r["nominalQuota"] for r in f["resources"]} for f in group["flavors"]}


def test_tpu_quotas_sum_to_the_chips_the_pools_provide():
    s = parsed("prod", tpuPools=QUEUED_POOLS)
    quotas = _quotas(_objects(s)["cluster-queue"])
    tpu = {name: int(q["google.com/tpu"]) for name, q in quotas.items()}
    assert tpu == {"pathways-cpu": 0, "pathways-tpu-train": 4 * 16, "pathways-tpu-burst": 2 * 8}
    assert sum(tpu.values()) == sum(tpu_chips(p) for p in s.tpu_pools) == 80


def test_tpu_flavors_do_not_limit_host_cpu_and_memory():
    quotas = _quotas(_objects(parsed("prod"))["cluster-queue"])
    assert {k: v for k, v in quotas["pathways-tpu-train"].items() if k != "google.com/tpu"} == HOST_RESOURCES_NOT_LIMITED


def test_cpu_quota_is_the_cpu_pools_allocatable_at_max_nodes():
    # prod: 8 x n2-standard-64 (64 vCPU, 256 GiB)
    quotas = _quotas(_objects(parsed("prod"))["cluster-queue"])["pathways-cpu"]
    per_node = gke_allocatable(CpuMachine("n2-standard-64", 64, 256))
    assert quotas == {"cpu": f"{8 * per_node.millicores}m", "memory": f"{8 * per_node.memory_mib}Mi",
                      "google.com/tpu": "0"}


def test_gke_allocatable_subtracts_node_reservations():
    node = gke_allocatable(CpuMachine("n2-standard-64", 64, 256))
    # CPU: 6% of core 1, 1% of core 2, 0.5% of cores 3-4, 0.25% of the other 60 -> 230m reserved
    assert node.millicores == 64000 - 230
    # memory: 25% of 4 + 20% of 4 + 10% of 8 + 6% of 112 + 2% of 128 GiB, plus the 100 MiB eviction threshold
    reserved = Fraction(1024 + 819.2 + 819.2 + 6881.28 + 2621.44).limit_denominator(100) + 100
    assert node.memory_mib == int(256 * 1024 - reserved)
    assert 0.95 < node.memory_mib / (256 * 1024) < 0.96


def test_the_head_of_xpk_size_fits_the_allocatable_of_one_cpu_node():
    node = gke_allocatable(CpuMachine("n2-standard-64", 64, 256))
    assert node.millicores >= 48_000 and node.memory_mib * 2**20 >= 232e9


def test_queued_pools_get_a_provisioning_admission_check_on_their_flavor_only():
    objects = _objects(parsed("prod", tpuPools=QUEUED_POOLS))
    assert objects["cluster-queue"]["spec"]["admissionChecksStrategy"] == {
        "admissionChecks": [{"name": "pathways-queued-provisioning", "onFlavors": ["pathways-tpu-burst"]}]}
    assert objects["admission-check"]["spec"]["parameters"] == {
        "apiGroup": "kueue.x-k8s.io", "kind": "ProvisioningRequestConfig", "name": "pathways-queued-provisioning"}
    prc = objects["provisioning-config"]["spec"]
    assert prc["provisioningClassName"] == "queued-provisioning.gke.io" and prc["managedResources"] == ["google.com/tpu"]
    tolerations = objects["flavor-tpu-burst"]["spec"]["tolerations"]
    assert {"key": "cloud.google.com/gke-queued", "operator": "Exists", "effect": "NoSchedule"} in tolerations


def test_no_admission_check_without_queued_pools():
    objects = _objects(parsed("prod"))
    assert "admissionChecksStrategy" not in objects["cluster-queue"]["spec"]
    assert "admission-check" not in objects and "provisioning-config" not in objects


def test_the_spec_is_deterministic():
    assert services_spec(parsed("prod", tpuPools=QUEUED_POOLS)) == services_spec(parsed("prod", tpuPools=QUEUED_POOLS))


def test_every_manifest_object_is_force_applied_like_kubectl_force_conflicts():
    forced = with_force_apply({**CRD, "metadata": {"name": JOBSET_CRD, "annotations": {"a": "b"}}})
    assert forced["metadata"]["annotations"] == {"a": "b", PATCH_FORCE_ANNOTATION: "true"}
    assert with_force_apply({"file": "https://x/manifests.yaml", "skipAwait": False}) is None  # the ConfigFile itself


def test_the_registered_transforms_compose_on_a_controller_deployment():
    """Run the install's transforms the way the engine does (each on the previous result)."""
    props, opts = DEPLOYMENT, pulumi.ResourceOptions()
    for transform in install_transforms(services_spec(parsed("prod"))):
        result = transform(pulumi.ResourceTransformArgs(True, tokens.DEPLOYMENT, "d", props, opts))
        if result is not None:
            props, opts = result.props, result.opts
    assert props["metadata"]["annotations"] == {PATCH_FORCE_ANNOTATION: "true"}
    assert props["spec"]["template"]["spec"]["nodeSelector"][NODE_POOL_LABEL] == "cpu-np"
    assert not opts.protect


@pytest.mark.parametrize("protected", [True, False])
def test_the_registered_transforms_protect_the_jobset_crd_where_the_cluster_is(protected):
    props, opts = CRD, pulumi.ResourceOptions()
    prefix = "pw-dev-services-jobset"
    for transform in install_transforms(services_spec(parsed("dev")), protected=protected, prefix=prefix, legacy_prefix="jobset"):
        result = transform(pulumi.ResourceTransformArgs(True, tokens.CRD, f"{prefix}:jobsets.jobset.x-k8s.io", props,
                                                        opts))
        if result is not None:
            props, opts = result.props, result.opts
    assert opts.protect is protected and props["metadata"]["annotations"][PATCH_FORCE_ANNOTATION] == "true"
    # the child keeps the URN it had under the old fixed prefix as an alias: an existing stack moves it
    assert [a.name for a in opts.aliases] == ["jobset:jobsets.jobset.x-k8s.io"]
