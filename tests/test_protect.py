"""`protect` decided per child kind (pathways_gke.protection), not inherited from the component.

Pulumi children inherit `protect` from their parent unless they set it; a protected JobSet could never be
replaced, and a protected object in a dev stack makes `pulumi destroy` fail. So: infrastructure is protected
when the component (or `cluster.protect`) is, what must stay replaceable never is.
"""

import re

import pulumi
import pytest

from pathways_gke import PathwaysCluster
from pathways_gke.config.stack import load_stack_file
from pathways_gke.plan.engine import plan_stack
from pathways_gke.protection import CHILD_PROTECTION, INFRASTRUCTURE, protect_child
from tests.conftest import ROOT, STACKS
from tests.support.offline import run

SOURCES = ROOT / "components" / "pathways_gke"
INFRA_TYPES = {"gcp:container/cluster:Cluster", "gcp:container/nodePool:NodePool",
               "gcp:serviceaccount/account:Account", "gcp:compute/resourcePolicy:ResourcePolicy",
               "kubernetes:core/v1:Namespace"}


def plan_component(stack: str, opts: pulumi.ResourceOptions):
    config = load_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
    holder = []

    def program():
        holder.append(PathwaysCluster.from_stack(config.cluster.name, config, opts=opts))

    return run(program, stack=stack), holder[0]


@pytest.fixture(scope="module")
def protected_dev():
    return plan_component("dev", pulumi.ResourceOptions(protect=True))


def test_a_protected_component_protects_cluster_and_node_pools_but_not_jobsets(protected_dev):
    plan, component = protected_dev
    protect = {r.name: r.options["protect"] for r in plan.resources if r.custom}
    assert protect["pw-dev-cluster"] is True
    pools = [r for r in plan.of_type("gcp:container/nodePool:NodePool")]
    assert pools and all(p.options["protect"] for p in pools)
    assert protect["pw-dev-node-sa"] is True
    jobsets = plan.of_type("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet")
    assert jobsets and not any(j.options["protect"] for j in jobsets)
    # nothing but infrastructure carries protect; the provider, IAM grants, readiness objects stay free
    assert {r.type for r in plan.resources if r.custom and r.options["protect"]} <= INFRA_TYPES
    assert protect["pw-dev-kubernetes"] is False and protect["pw-dev-services-ready"] is False
    # the installs' CRD follows the cluster (applied by the install's transform)
    assert component.services.protected is True


def test_sub_components_and_installs_do_not_pass_protect_down(protected_dev):
    plan, _ = protected_dev
    for resource in plan.resources:
        if resource.parent is not None and not resource.custom:  # TpuSliceGroup, services, workloads, installs
            assert resource.options["protect"] is False, resource.name


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_infrastructure_follows_cluster_protect_in_every_stack(stack):
    plan = plan_stack(stack, ROOT)
    config = load_stack_file(ROOT / "stacks" / f"Pulumi.{stack}.yaml")
    protected = {r.type for r in plan.resources if r.options.get("protect")}
    assert protected <= INFRA_TYPES
    if config.cluster.protect:
        assert "gcp:container/nodePool:NodePool" in protected
    for jobset in plan.of_type("kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"):
        assert jobset.options["protect"] is False


@pytest.mark.slow
def test_destroying_dev_meets_no_protected_resource():
    """`pulumi destroy -s dev` fails on the first protected resource: there must be none, CRD included."""
    plan = plan_stack("dev", ROOT)
    assert [r.urn for r in plan.resources if r.options.get("protect")] == []
    holder = []
    config = load_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    run(lambda: holder.append(PathwaysCluster.from_stack("pw-dev", config)), stack="dev")
    # the JobSet CRD's protect comes from the install transform, decided by this flag
    assert holder[0].services.protected is False


def test_the_table_decides_every_kind_the_code_uses():
    used = set()
    for path in SOURCES.rglob("*.py"):
        used |= set(re.findall(r'protect_child\("([a-z-]+)"', path.read_text()))
    assert used and used <= set(CHILD_PROTECTION)
    with pytest.raises(KeyError, match="add it to CHILD_PROTECTION"):
        protect_child("mystery", True)
    assert all(protect_child(kind, False) is False for kind in CHILD_PROTECTION)
    assert {k for k in CHILD_PROTECTION if protect_child(k, True)} == {
        k for k, rule in CHILD_PROTECTION.items() if rule == INFRASTRUCTURE}
    for replaceable in ("jobset", "workload-secret", "readiness", "kubernetes-provider", "workload"):
        assert protect_child(replaceable, True) is False


@pytest.mark.slow
def test_a_retained_component_never_retains_what_is_replaced_delete_first():
    """retainOnDelete is inherited by children that leave it unset (pulumi/pulumi source_eval.go inheritFromParent;
    the plan records it as the engine applies it): a retained JobSet or Service replaced delete-first under its
    fixed name would hit 409. Replaceable kinds set it false; infrastructure keeps the component's wish."""
    plan, _ = plan_component("serve", pulumi.ResourceOptions(retain_on_delete=True))
    retain = {r.name: r.options["retainOnDelete"] for r in plan.resources if r.custom}
    assert retain["pw-serve-cluster"] is True
    assert all(retain[r.name] for r in plan.resources if r.type == "gcp:container/nodePool:NodePool")
    replaceable = [r for r in plan.resources if r.custom and r.type.split(":")[-1] in (
        "JobSet", "LeaderWorkerSet", "Service", "Deployment", "Secret", "ConfigMap")]
    assert replaceable and not any(retain[r.name] for r in replaceable)
    assert retain["pw-serve-kubernetes"] is False
    # and without the option nothing is retained
    plain, _ = plan_component("serve", pulumi.ResourceOptions())
    assert not any(r.options["retainOnDelete"] for r in plain.resources if r.custom)


def test_a_workload_component_is_never_protected_itself():
    """Children are deleted before their parent: a protected workload component would be half-deleted (its JobSet
    gone, the component refused). Its own protect is dropped; its JobSet is never protected."""
    from pathways_gke.workloads.pathways import PathwaysWorkload
    from tests.test_pathways_component import ARGS

    plan = run(lambda: PathwaysWorkload("train", ARGS, pulumi.ResourceOptions(protect=True)))
    assert plan.named("train").options["protect"] is False
    assert plan.named("train-jobset").options["protect"] is False
