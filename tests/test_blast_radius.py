"""Blast radius: a change touches what it must and nothing else (a workload change never touches
infrastructure, a new slice adds one node pool, nothing is replaced that need not be).

Each test plans a platform-sized stack (two TPU groups, several workloads on each, a CPU JAX workload,
Kueue on), applies one change a user makes every week, and reads the offline diff of the two real plans.
"""

import copy
import dataclasses
import json

import pytest

from pathways_gke.plan.diff import diff_plans, rename_warnings, render_text
from pathways_gke.plan.engine import plan_config
from pathways_gke.tokens import NODE_POOL
from tests.support.golden import GOLDEN_DIR
from tests.support.stacks import P, shipped, stack

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
CLUSTER_QUEUE = "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
TRAIN_WORKLOADS = ("llm-pretrain", "llm-finetune")  # on the "train" group
SERVE_WORKLOAD = "serve"                           # on the "serve" group
CPU_WORKLOAD = "jax-cpu"                           # on the CPU pool


def platform_config():
    """prod, plus a second TPU group and workloads on every kind of pool."""
    prod = shipped("prod")
    pretrain = prod[P + "workloads"][0]
    serve = {"name": "serve", "type": "v5e", "topology": "2x4", "slices": 2, "zone": "us-east5-b",
             "capacity": "on-demand"}
    return stack(prod, tpuPools=[*prod[P + "tpuPools"], serve], workloads=[
        pretrain,
        {**pretrain, "name": "llm-finetune"},
        {**pretrain, "name": SERVE_WORKLOAD, "tpuPool": "serve"},
        {"name": CPU_WORKLOAD, "runtime": "jax", "image": "us-docker.pkg.dev/acme-ml-prod/train/jax:2026-11-20",
         "command": "python3 smoke.py", "jax": {"processes": 2}},
    ])


@pytest.fixture(scope="module")
def base():
    return plan_config(platform_config(), stack="prod")


def plan_with(edit):
    config = copy.deepcopy(platform_config())
    edit(config)
    return plan_config(config, stack="prod")


def jobset_of(workload: str) -> str:
    return f"pw-prod-{workload}-jobset"


def names(items) -> set[str]:
    return {getattr(c, "name", None) or c["name"] for c in items}


def tpu_quota(cluster_queue, group: str) -> int:
    inputs = cluster_queue["inputs"] if isinstance(cluster_queue, dict) else cluster_queue.inputs
    return sum(int(r["nominalQuota"]) for g in inputs["spec"]["resourceGroups"] for f in g["flavors"]
               if f["name"].endswith(f"tpu-{group}") for r in f["resources"] if r["name"] == "google.com/tpu")


def workload(config, name):
    return next(w for w in config["pathways-gke:workloads"] if w["name"] == name)


@pytest.mark.slow
def test_a_workload_image_change_touches_only_that_workload(base):
    def new_image(config):
        workload(config, "llm-finetune")["image"] = "us-docker.pkg.dev/acme-ml-prod/train/trainer:2026-12-01"

    diff = diff_plans(base, plan_with(new_image))
    assert (diff.added, diff.removed) == ((), ())
    [change] = diff.changed
    assert change.name == jobset_of("llm-finetune")
    assert change.properties and all(p.endswith(".image") for p in change.properties), change.properties
    assert change.replace, "a JobSet's spec is immutable: the changed workload is replaced, never patched"


@pytest.mark.slow
def test_one_more_slice_adds_one_pool_and_replaces_only_the_workloads_on_that_group(base):
    def add_slice(config):
        config["pathways-gke:tpuPools"][0]["slices"] += 1

    diff = diff_plans(base, plan_with(add_slice))
    assert [(r["type"], r["name"]) for r in diff.added] == [(NODE_POOL, "pw-prod-train-4")]
    assert diff.removed == ()
    assert names(diff.replaced) == {jobset_of(w) for w in TRAIN_WORKLOADS}
    # the only in-place update: Kueue's TPU quota for the group grows by the new slice's chips (4x4: 16)
    [quota] = [c for c in diff.changed if not c.replace]
    assert quota.type == CLUSTER_QUEUE and len(quota.properties) == 1
    assert tpu_quota(diff.new_resources[quota.urn], "train") - tpu_quota(base.by_urn()[quota.urn], "train") == 16
    untouched = {jobset_of(SERVE_WORKLOAD), jobset_of(CPU_WORKLOAD), "pw-prod-cpu", "pw-prod-cluster",
                 *(f"pw-prod-train-{i}" for i in range(4)), *(f"pw-prod-serve-{i}" for i in range(2))}
    assert untouched.isdisjoint(names(diff.changed))


@pytest.mark.slow
def test_a_cpu_pool_change_leaves_every_tpu_pool_and_workload_alone(base):
    def bigger_cpu_pool(config):
        config["pathways-gke:cpuPool"].update(maxNodes=12, machineType="n2-highmem-32")

    diff = diff_plans(base, plan_with(bigger_cpu_pool))
    assert (diff.added, diff.removed, diff.replaced) == ((), (), ())
    assert names(diff.changed) == {"pw-prod-cpu", "pw-prod-services-cluster-queue"}
    assert not [c for c in diff.changed if c.type == NODE_POOL and c.name != "pw-prod-cpu"]
    assert not [c for c in diff.changed if c.type == JOBSET], "heads are rescheduled, their JobSets stay"


@pytest.mark.slow
def test_a_new_workload_adds_its_jobset_and_changes_nothing_else(base):
    def one_more(config):
        config["pathways-gke:workloads"].append({**workload(config, "llm-pretrain"), "name": "eval"})

    diff = diff_plans(base, plan_with(one_more))
    assert names(diff.added) == {"pw-prod-eval", jobset_of("eval")}
    assert (diff.removed, diff.changed) == ((), ())


@pytest.mark.slow
def test_removing_a_tpu_group_deletes_only_that_group_and_its_workload(base):
    def drop_serve(config):
        config["pathways-gke:tpuPools"] = config["pathways-gke:tpuPools"][:1]
        config["pathways-gke:workloads"] = [w for w in config["pathways-gke:workloads"] if w["name"] != "serve"]

    diff = diff_plans(base, plan_with(drop_serve))
    assert diff.added == ()
    assert names(diff.removed) == {"pw-prod-serve", "pw-prod-serve-0", "pw-prod-serve-1",
                                   "pw-prod-services-flavor-tpu-serve", f"pw-prod-{SERVE_WORKLOAD}",
                                   jobset_of(SERVE_WORKLOAD)}
    assert names(diff.changed) == {"pw-prod-services-cluster-queue"}  # the group's quota goes with it
    assert not diff.replaced


# --- child names are public API: a rename without an alias is caught -----------------------------


@pytest.mark.slow
def test_renaming_a_child_without_an_alias_is_caught_against_the_golden_plan(monkeypatch, capsys):
    """Rename the CPU pool's resource in the program (as a careless refactor would) and diff the real plan
    with the committed snapshot: the rename is reported, loudly, as delete + create."""
    from pathways_gke import cluster

    real = cluster.node_pool

    def renamed(spec, parent, *args, **kwargs):
        if spec.resource_name.endswith("-cpu"):
            spec = dataclasses.replace(spec, resource_name=spec.resource_name.replace("-cpu", "-head-pool"))
        return real(spec, parent, *args, **kwargs)

    monkeypatch.setattr(cluster, "node_pool", renamed)
    current = plan_config(shipped("dev"), stack="dev")
    golden = json.loads((GOLDEN_DIR / "dev.json").read_text())

    diff = diff_plans(golden, current)
    assert [(o.rpartition("::")[2], n.rpartition("::")[2]) for o, n in diff.renames_without_alias] == [
        ("pw-dev-cpu", "pw-dev-head-pool")]
    text = render_text(diff)
    assert "!! pw-dev-head-pool looks like pw-dev-cpu renamed without an alias" in text
    assert 'aliases=[pulumi.Alias(name="pw-dev-cpu")]' in text
    assert json.loads(diff.dumps())["renamesWithoutAlias"] == [
        {"from": diff.renames_without_alias[0][0], "to": diff.renames_without_alias[0][1]}]


def test_the_same_rename_with_an_alias_is_a_rename_not_a_delete(monkeypatch):
    from pathways_gke import cluster

    real_pool = cluster.gcp.container.NodePool

    def aliased(resource_name, opts=None, **kwargs):
        if resource_name.endswith("-cpu"):
            alias = cluster.pulumi.ResourceOptions(aliases=[cluster.pulumi.Alias(name=resource_name)])
            opts, resource_name = opts.merge(alias), resource_name.replace("-cpu", "-head-pool")
        return real_pool(resource_name, opts=opts, **kwargs)

    monkeypatch.setattr(cluster.gcp.container, "NodePool", aliased)
    current = plan_config(shipped("dev"), stack="dev")
    golden = json.loads((GOLDEN_DIR / "dev.json").read_text())

    diff = diff_plans(golden, current)
    assert diff.renames_without_alias == () and rename_warnings(diff) == []
    assert (diff.added, diff.removed) == ((), ())
    [change] = [c for c in diff.changed if c.renamed_from]
    assert change.name == "pw-dev-head-pool" and change.renamed_from.endswith("::pw-dev-cpu")
    assert not change.replace


# --- serving on a LeaderWorkerSet: an update rolls the groups, nothing is replaced ---------------------

LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
SERVING_WORKLOAD = "chat"  # mode serving, on the "serve" group


def serving_config(config=None):
    """The platform stack plus a serving workload on the v5e "serve" group (2 slices of 2x4)."""
    config = copy.deepcopy(config or platform_config())
    config["pathways-gke:workloads"].append({
        "name": SERVING_WORKLOAD, "runtime": "pathways", "mode": "serving", "tpuPool": "serve",
        "image": "us-docker.pkg.dev/acme-ml-prod/serve/jetstream-pathways:2026-11-20",
        "command": "python3 -m MaxText.maxengine_server configs/inference.yml",
        "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-ml-prod-pathways/serve"},
        "serving": {"port": 9000, "replicas": 2}})
    return config


@pytest.fixture(scope="module")
def serving_base():
    return plan_config(serving_config(), stack="prod")


def serving_plan_with(edit):
    config = serving_config()
    edit(config)
    return plan_config(config, stack="prod")


@pytest.mark.slow
def test_a_serving_image_change_rolls_only_its_leaderworkerset(serving_base):
    def new_image(config):
        workload(config, SERVING_WORKLOAD)["image"] = "us-docker.pkg.dev/acme-ml-prod/serve/jetstream-pathways:2026-12-01"

    diff = diff_plans(serving_base, serving_plan_with(new_image))
    assert (diff.added, diff.removed) == ((), ())
    [change] = diff.changed
    assert (change.type, change.name) == (LWS, f"pw-prod-{SERVING_WORKLOAD}-lws")
    assert change.properties == ("spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0].image",)
    assert not change.replace, "an LWS rolls its groups one by one; it is updated, never deleted and recreated"
    assert diff.disruptive_node_pools == () and not [c for c in diff.changed if c.type == JOBSET]


@pytest.mark.slow
def test_adding_a_serving_replica_is_an_update_of_the_leaderworkerset_alone(serving_base):
    config = serving_config()
    config["pathways-gke:tpuPools"][1]["slices"] = 3
    workload(config, SERVING_WORKLOAD)["serving"]["replicas"] = 3
    diff = diff_plans(serving_base, plan_config(config, stack="prod"))
    assert [r["name"] for r in diff.added] == ["pw-prod-serve-2"]  # the new slice
    lws = [c for c in diff.changed if c.type == LWS]
    assert [(c.properties, c.replace) for c in lws] == [(("spec.replicas",), False)]
    # JobSets on that group are replaced with its pools (their spec is immutable); the LWS is not
    assert f"pw-prod-{SERVING_WORKLOAD}-lws" not in names(diff.replaced)
