"""ClusterServices in the resource graph: the offline plans of dev and prod, and the component on its own."""

from __future__ import annotations

import functools

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s
import pytest

from pathways_gke.plan import plan_config, plan_stack
from pathways_gke.addons import services_spec
from pathways_gke.config.model import ClusterFacts
from pathways_gke.services import ClusterServices
from tests.conftest import ROOT
from tests.support.stacks import QUEUED_POOLS, parsed, stack
from tests.support.crd import kueue_schema_errors
from tests.support.offline import run

CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
NODE_POOL = "gcp:container/nodePool:NodePool"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
KUEUE_KINDS = ("ResourceFlavor", "ClusterQueue", "LocalQueue", "AdmissionCheck", "ProvisioningRequestConfig")


@functools.lru_cache(maxsize=None)
def planned(env: str):
    return plan_stack(env, ROOT)


def services_subtree(plan, name):
    component = plan.named(name)
    return [r for r in plan.resources if r.parent == component.urn]


def tpu_pool_urns(plan):
    """Every slice node pool (they live in TpuSliceGroup components)."""
    return {r.urn for r in plan.of_type(NODE_POOL) if "pathways-gke:index:TpuSliceGroup$" in r.urn}


@pytest.mark.slow
@pytest.mark.parametrize("env,cluster", [("dev", "pw-dev"), ("prod", "pw-prod")])
def test_the_jobset_install_is_the_pinned_release_awaited_after_the_cpu_pool_only(env, cluster):
    plan = planned(env)
    install = plan.named(f"{cluster}-services-jobset")
    assert install.type == CONFIG_FILE and install.remote
    assert install.inputs == {
        "file": "https://github.com/kubernetes-sigs/jobset/releases/download/v0.12.0/manifests.yaml",
        "resourcePrefix": f"{cluster}-services-jobset", "skipAwait": False}
    assert install.depends_on == [plan.named(f"{cluster}-cpu").urn]
    assert install.options["providers"]["kubernetes"].endswith(f"::{cluster}-kubernetes")


@pytest.mark.slow
@pytest.mark.parametrize("env,cluster", [("dev", "pw-dev"), ("prod", "pw-prod")])
def test_no_tpu_pool_is_an_input_of_any_cluster_service(env, cluster):
    plan = planned(env)
    tpu_pools = tpu_pool_urns(plan)
    assert tpu_pools, "the plan has TPU node pools"
    for resource in services_subtree(plan, f"{cluster}-services"):
        assert not tpu_pools & set(resource.depends_on), resource.name


@pytest.mark.parametrize("env,cluster", [("dev", "pw-dev"), ("prod", "pw-prod")])
def test_the_readiness_gate_comes_after_every_install(env, cluster):
    plan = planned(env)
    gate = plan.named(f"{cluster}-services-ready")
    assert gate.type == "kubernetes:core/v1:ConfigMap"
    installs = {r.urn for r in plan.of_type(CONFIG_FILE)}
    assert installs and installs <= set(gate.depends_on)
    assert gate.inputs["data"]["jobset.version"] == "v0.12.0"


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_every_jobset_workload_depends_on_the_readiness_gate_and_install(env):
    plan = planned(env)
    workloads = plan.of_type(JOBSET)
    if not workloads:
        pytest.skip("no JobSet workloads in the plan")
    gate = next(r for r in plan.resources if r.name.endswith("-services-ready"))
    install = next(r for r in plan.of_type(CONFIG_FILE) if r.name.endswith("-services-jobset"))
    for workload in workloads:
        assert {gate.urn, install.urn} <= set(workload.depends_on), workload.name


def test_dev_has_no_kueue_no_namespace_and_no_priority_classes():
    names = {r.name for r in services_subtree(planned("dev"), "pw-dev-services")}
    assert names == {"pw-dev-services-jobset", "pw-dev-services-ready"}


def test_prod_has_kueue_its_queues_namespace_and_priority_ladder():
    plan = planned("prod")
    names = {r.name for r in services_subtree(plan, "pw-prod-services")}
    assert names == {
        "pw-prod-services-namespace", "pw-prod-services-jobset", "pw-prod-services-kueue", "pw-prod-services-ready",
        "pw-prod-services-flavor-cpu", "pw-prod-services-flavor-tpu-train", "pw-prod-services-cluster-queue",
        "pw-prod-services-local-queue",
        *(f"pw-prod-services-priority-{p}" for p in ("very-low", "low", "medium", "high", "very-high"))}
    kueue = plan.named("pw-prod-services-kueue")
    assert kueue.inputs["file"] == "https://github.com/kubernetes-sigs/kueue/releases/download/v0.19.5/manifests.yaml"
    assert set(kueue.depends_on) == {plan.named("pw-prod-cpu").urn, plan.named("pw-prod-services-jobset").urn}
    for r in services_subtree(plan, "pw-prod-services"):
        if r.type.startswith("kubernetes:kueue.x-k8s.io/"):
            assert kueue.urn in r.depends_on, r.name


@pytest.mark.needs_shared
def test_prod_kueue_objects_from_the_plan_validate_against_both_crds():
    objects = [o for o in planned("prod").kubernetes_objects() if o["kind"] in KUEUE_KINDS]
    assert sorted(o["kind"] for o in objects) == ["ClusterQueue", "LocalQueue", "ResourceFlavor", "ResourceFlavor"]
    for obj in objects:
        assert kueue_schema_errors(obj) == {"v0.17.1": [], "v0.19.2": []}, obj["metadata"]["name"]


def test_prod_quota_in_the_plan_is_the_chips_of_the_pools():
    cq = planned("prod").named("pw-prod-services-cluster-queue").inputs
    [group] = cq["spec"]["resourceGroups"]
    tpu = {f["name"]: next(r["nominalQuota"] for r in f["resources"] if r["name"] == "google.com/tpu")
           for f in group["flavors"]}
    assert tpu == {"pathways-cpu": "0", "pathways-tpu-train": "64"}  # v6e-16 x 4 slices


@pytest.mark.slow
def test_a_queued_pool_adds_the_provisioning_admission_check_to_the_plan():
    plan = plan_config(stack("prod", tpuPools=QUEUED_POOLS), stack="queued")
    kinds = sorted(o["kind"] for o in plan.kubernetes_objects() if o["kind"] in KUEUE_KINDS)
    assert kinds == ["AdmissionCheck", "ClusterQueue", "LocalQueue", "ProvisioningRequestConfig",
                     "ResourceFlavor", "ResourceFlavor", "ResourceFlavor"]


def test_a_local_manifest_is_the_install_source_shown_in_the_plan(tmp_path):
    manifest = tmp_path / "jobset-v0.10.1.yaml"
    manifest.write_text("kind: CustomResourceDefinition\nmetadata:\n  name: jobsets.jobset.x-k8s.io\n"
                        "---\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
                        "      - image: registry.k8s.io/jobset/jobset:v0.10.1\n")
    plan = plan_config(stack("dev", jobset={"version": "v0.10.1", "manifest": str(manifest)}), stack="dev")
    install = plan.named("pw-dev-services-jobset")
    assert install.inputs["file"] == str(manifest)
    assert plan.named("pw-dev-services-ready").inputs["data"]["jobset.source"] == str(manifest)


@pytest.mark.slow
def test_a_jobset_upgrade_keeps_every_urn_and_changes_only_the_source():
    old = plan_config(stack("dev", jobset={"version": "v0.10.1"}), stack="dev")
    new = plan_config(stack("dev", jobset={"version": "v0.12.0"}), stack="dev")
    assert [r.urn for r in old.resources] == [r.urn for r in new.resources]
    changed = {r.name for r, s in zip(old.resources, new.resources) if r.inputs != s.inputs}
    assert changed == {"pw-dev-services-jobset", "pw-dev-services-ready"}


def test_the_component_outputs_name_versions_and_queue():
    outputs = planned("prod").named("pw-prod-services").outputs
    assert outputs["jobsetVersion"] == "v0.12.0" and outputs["kueueVersion"] == "v0.19.5"
    assert outputs["queueName"] == "pathways-queue" and outputs["namespace"] == "ml"


# --- the component on its own --------------------------------------------------------------------

def _standalone(env: str):
    seen = {}

    def program():
        cpu = gcp.container.NodePool("cpu", cluster="c", node_count=1)
        tpu = gcp.container.NodePool("tpu-0", cluster="c", node_count=1)
        provider = k8s.Provider("k8s", kubeconfig="{}")
        stack = parsed(env)
        services = ClusterServices("svc", {"cluster": ClusterFacts.of(stack), "services": services_spec(stack),
                                           "cpu_pool": cpu},
                                   pulumi.ResourceOptions(providers={"kubernetes": provider}))
        seen["services"] = services
        k8s.apiextensions.CustomResource(
            "workload", api_version="jobset.x-k8s.io/v1alpha2", kind="JobSet",
            metadata={"name": "train", "namespace": services.namespace}, spec={},
            opts=pulumi.ResourceOptions(provider=provider, depends_on=[*services.ready, tpu]))

    return run(program), seen["services"]


def test_a_workload_depending_on_ready_waits_for_the_gate_and_the_installs():
    plan, services = _standalone("prod")
    gate_and_installs = {plan.named(name).urn for name in ("svc-ready", "svc-jobset", "svc-kueue")}
    assert gate_and_installs <= set(plan.named("workload").depends_on)
    assert (services.namespace, services.queue_name) == ("ml", "pathways-queue")


def test_standalone_children_inherit_the_provider_and_register_the_transforms():
    plan, _ = _standalone("dev")
    component, provider = plan.named("svc"), plan.named("k8s").urn
    children = [r for r in plan.resources if r.parent == component.urn]
    assert children
    for child in children:
        assert provider in (child.options["provider"], child.options.get("providers", {}).get("kubernetes")), \
            child.name
    install = plan.named("svc-jobset")
    # force_apply + keep_on_node_pool + sized_for_cluster + protect_crds + alias_legacy_names
    assert install.options["transforms"] == 5
    assert install.depends_on == [plan.named("cpu").urn]
    assert component.type == "pathways-gke:index:ClusterServices"


def test_dev_has_no_queue_name():
    _, services = _standalone("dev")
    assert services.queue_name is None and services.namespace == "default"
