"""Taking over a cluster XPK made, safely: the head's real identity (XPK's pools run as the Compute Engine default,
XPK passes no --service-account) is read at preview and granted; pool names that collide with existing pools (read
at preview) or with XPK's `<cluster>-np-<i>` are refused; the slices this stack adds carry their group's taint so
XPK's queue (its flavor selects accelerator and topology only) cannot place pods on them; and a workload runs on
XPK's existing slices (`tpuPools[].create: false`)."""

from __future__ import annotations

import pulumi
import pytest

from pathways_gke import naming, tokens
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.gke.adopt import existing_pool_problems, pool_member, pool_service_account
from pathways_gke.program import main as program
from tests.support.offline import Cloud, run

P = "pathways-gke:"
NUMBER = "123456789012"
IMAGE = "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20"
CLUSTER_READ = {"workloadIdentityConfig": {"workloadPool": "acme-ml-dev.svc.id.goog"},
                "datapathProvider": "ADVANCED_DATAPATH", "releaseChannel": {"channel": "REGULAR"},
                "masterVersion": "1.34.1-gke.1829001", "name": "xpk-a", "endpoint": "10.0.0.2",
                "masterAuth": {"clusterCaCertificate": "Q0E="}}


def workload(name: str, group: str, **extra) -> dict:
    return {"name": name, "runtime": "pathways", "tpuPool": group, "image": IMAGE, "command": "python3 train.py",
            "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-ml-dev-pathways/tmp"}, **extra}


def xpk_stack(*groups: dict, workloads: list | None = None, **sections) -> dict:
    """An XPK cluster `xpk-a` (cpu-np, and 4 × v6e-16 slices xpk-a-np-0..3) taken over by a stack."""
    groups = groups or ({"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b"},)
    config = {
        "gcp:project": "acme-ml-dev",
        P + "cluster": {"name": "xpk-a", "location": "us-east5", "create": False},
        P + "cpuPool": {"create": False},
        P + "tpuPools": list(groups),
        P + "workloads": workloads if workloads is not None else [workload("train", groups[0]["name"])],
    }
    config.update({P + k: v for k, v in sections.items()})
    return config


def xpk_pool(name: str, machine: str, account: str = "default", labels: dict | None = None) -> dict:
    """A node pool as the getCluster data source reports it (what XPK's gcloud commands made)."""
    return {"name": name, "nodeConfigs": [{"machineType": machine, "serviceAccount": account,
                                           "labels": labels or {}}]}


XPK_POOLS = [xpk_pool("cpu-np", "n2-standard-64")] + [xpk_pool(f"xpk-a-np-{i}", "ct6e-standard-4t")
                                                      for i in range(4)]


def xpk_cloud(pools=XPK_POOLS, number=NUMBER) -> Cloud:
    return Cloud(reads={tokens.GKE_CLUSTER: lambda args: CLUSTER_READ},
                 invokes={tokens.GET_CLUSTER: lambda args: {"nodePools": pools, "name": "xpk-a"},
                          tokens.GET_PROJECT: lambda args: {"number": number, "projectId": "acme-ml-dev"}})


def problems_of(config: dict) -> list:
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return caught.value.problems


def jobset(plan, name: str) -> dict:
    return plan.named(f"xpk-a-{name}-jobset").inputs


def pods(plan, name: str) -> dict[str, dict]:
    return {j["name"]: j["template"]["spec"]["template"]["spec"] for j in jobset(plan, name)["spec"]["replicatedJobs"]}


# --- the config: XPK's names, existing pools -----------------------------------------------------------------


def test_a_group_this_stack_creates_may_not_take_xpks_pool_names_on_an_adopted_cluster():
    config = xpk_stack({"name": "np", "type": "v6e-16", "slices": 2, "zone": "us-east5-b"})
    (problem,) = [p for p in problems_of(config) if p.path == "tpuPools[0].name"]
    assert "xpk-a-np-0" in problem.message and "XPK" in problem.message and "create: false" in problem.message


def test_a_created_cluster_may_name_a_group_np():
    config = xpk_stack({"name": "np", "type": "v6e-16", "slices": 2, "zone": "us-east5-b"})
    config[P + "cluster"] = {"name": "xpk-a", "location": "us-east5"}
    config[P + "cpuPool"] = {}
    assert parse_stack(config).tpu_pools[0].name == "np"


@pytest.mark.parametrize("change, path, fragment", [
    ({"cluster": {"name": "xpk-a", "location": "us-east5"}, "cpuPool": {}}, "tpuPools[0].create",
     "only an adopted cluster"),
    ({"kueue": {"enabled": True}}, "tpuPools[0].create", "two ClusterQueues would count the same slices"),
    ({"tpuPools": [{"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b",
                    "diskSizeGb": 100}]}, "tpuPools[0].diskSizeGb", "existing pools are used as they are"),
    ({"workloads": [{"name": "train", "runtime": "jax", "tpuPool": "np", "image": IMAGE, "command": "python3 t.py"}]},
     "tpuPools[0].create", "runtime jax"),
], ids=["created-cluster", "kueue", "create-only-field", "jax"])
def test_existing_slices_are_refused_where_the_stack_cannot_honour_them(change, path, fragment):
    config = xpk_stack(**{k: v for k, v in change.items() if k in ("kueue",)})
    for key in ("cluster", "cpuPool", "tpuPools", "workloads"):
        if key in change:
            config[P + key] = change[key]
    found = [p for p in problems_of(config) if p.path == path]
    assert found and fragment in found[0].message, [p.render() if hasattr(p, "render") else p for p in found]


# --- the pools read at preview (pure) ----------------------------------------------------------------------------


def test_xpks_pools_run_as_the_compute_engine_default():
    assert pool_service_account(XPK_POOLS, "cpu-np") == "default"
    assert pool_member("default", NUMBER) == f"serviceAccount:{NUMBER}-compute@developer.gserviceaccount.com"
    assert pool_member("nodes@acme.iam.gserviceaccount.com", None) == "serviceAccount:nodes@acme.iam.gserviceaccount.com"
    assert pool_member("default", None) is None and pool_member(None, NUMBER) is None


def test_pool_names_taken_by_pools_this_stack_did_not_create_are_named():
    stack = parse_stack(xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4,
                                   "zone": "us-east5-b"},
                                  {"name": "extra", "type": "v6e-16", "slices": 2, "zone": "us-east5-b"}))
    pools = XPK_POOLS + [xpk_pool("xpk-a-extra-1", "ct6e-standard-4t")]
    (problem,) = existing_pool_problems(pools, stack)
    assert "xpk-a-extra-1" in problem and "AlreadyExists" in problem
    # the same pool carrying this stack's group label is the stack's own (a later `pulumi up`)
    ours = XPK_POOLS + [xpk_pool("xpk-a-extra-1", "ct6e-standard-4t", labels={naming.TPU_GROUP_LABEL: "extra"})]
    assert existing_pool_problems(ours, stack) == []
    assert existing_pool_problems(None, stack) == []  # offline: nothing read, nothing claimed


def test_missing_or_misshapen_existing_pools_are_named():
    stack = parse_stack(xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4,
                                   "zone": "us-east5-b"}))
    missing = existing_pool_problems(XPK_POOLS[:-1], stack)
    assert len(missing) == 1 and "has no node pool xpk-a-np-3" in missing[0] and "tpuPools[0]" in missing[0]
    wrong = [*XPK_POOLS[:-1], xpk_pool("xpk-a-np-3", "ct5lp-hightpu-4t")]
    assert "runs ct5lp-hightpu-4t, not the ct6e-standard-4t" in existing_pool_problems(wrong, stack)[0]
    no_head = existing_pool_problems(XPK_POOLS[1:], stack)
    assert len(no_head) == 1 and "cpuPool.create: false" in no_head[0]


# --- the plan -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def xpk_plan():
    config = xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b"},
                       {"name": "extra", "type": "v6e-16", "slices": 1, "zone": "us-east5-b"},
                       workloads=[workload("train", "np"), workload("train2", "extra")])
    return run(program, stack="xpk", config=config, mocks=xpk_cloud())


DEFAULT_SA = f"serviceAccount:{NUMBER}-compute@developer.gserviceaccount.com"


@pytest.mark.slow
def test_a_workload_runs_on_xpks_existing_slices_which_are_read_not_created(xpk_plan):
    existing = [p for p in xpk_plan.of_type(tokens.NODE_POOL) if p.name.startswith("xpk-a-np-")]
    assert [p.name for p in existing] == [f"xpk-a-np-{i}" for i in range(4)] and all(p.read for p in existing)
    assert existing[0].options["id"] == "projects/acme-ml-dev/locations/us-east5/clusters/xpk-a/nodePools/xpk-a-np-0"
    worker = pods(xpk_plan, "train")["worker"]
    # XPK's pools carry no pathways-gke/tpu-group label: the workers select what XPK's own workloads select
    assert naming.TPU_GROUP_LABEL not in worker["nodeSelector"]
    assert worker["nodeSelector"][naming.TPU_TOPOLOGY_LABEL] == "4x4"
    assert jobset(xpk_plan, "train")["spec"]["replicatedJobs"][1]["replicas"] == 4
    assert {u for u in xpk_plan.named("xpk-a-train").depends_on} >= {p.urn for p in existing}


@pytest.mark.slow
def test_the_head_on_xpks_cpu_pool_runs_as_what_the_pool_runs_as_and_gets_the_grants(xpk_plan):
    report = xpk_plan.outputs["identities"]["train"]
    assert report["pods"]["pathways-head"]["runsAs"] == DEFAULT_SA
    assert report["pods"]["worker"]["runsAs"] == DEFAULT_SA  # XPK's slices too
    grants = [r for r in xpk_plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember")
              if r.inputs["member"] == DEFAULT_SA]
    assert {(g.inputs["bucket"], g.inputs["role"]) for g in grants} == {
        ("acme-ml-dev-pathways", "roles/storage.objectUser"), ("acme-ml-dev-pathways", "roles/storage.legacyBucketReader")}
    # the slices this stack creates run as its own node service account, and say so
    created = xpk_plan.outputs["identities"]["train2"]["pods"]["worker"]
    assert created["runsAs"].endswith("@acme-ml-dev.iam.gserviceaccount.com") and "nodes" in created["runsAs"]


@pytest.mark.slow
def test_slices_this_stack_adds_to_an_xpk_cluster_are_tainted_and_only_its_pods_tolerate_them(xpk_plan):
    pool = xpk_plan.named("xpk-a-extra-0")
    taint = {"key": naming.TPU_GROUP_LABEL, "value": "extra", "effect": "NO_SCHEDULE"}
    assert taint in pool.inputs["nodeConfig"]["taints"]
    worker = pods(xpk_plan, "train2")["worker"]
    assert {"key": naming.TPU_GROUP_LABEL, "operator": "Equal", "value": "extra",
            "effect": "NoSchedule"} in worker["tolerations"]
    # the workers on XPK's pools need no such toleration: those pools carry no taint of ours
    assert not any(t.get("key") == naming.TPU_GROUP_LABEL for t in pods(xpk_plan, "train")["worker"]["tolerations"])


@pytest.mark.slow
def test_the_preview_stops_when_a_pool_the_stack_would_create_already_exists():
    config = xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b"},
                       {"name": "extra", "type": "v6e-16", "slices": 1, "zone": "us-east5-b"})
    with pytest.raises(pulumi.RunError, match="xpk-a-extra-0 that this stack did not create"):
        run(program, stack="xpk", config=config,
            mocks=xpk_cloud(pools=XPK_POOLS + [xpk_pool("xpk-a-extra-0", "ct6e-standard-4t")]))


@pytest.mark.slow
def test_offline_the_head_identity_says_it_is_read_at_preview():
    plan = run(program, stack="xpk", config=xpk_stack())
    runs_as = plan.outputs["identities"]["train"]["pods"]["pathways-head"]["runsAs"]
    assert runs_as == "<the service account of node pool cpu-np, read at preview>"
    grants = [r for r in plan.of_type("gcp:storage/bucketIAMMember:BucketIAMMember") if "pool-cpu-np" in r.name]
    assert grants and all(g.inputs["member"] == "<computed>" for g in grants)


@pytest.mark.slow
def test_the_pod_fit_places_workers_on_xpks_slices_by_their_declared_shape(xpk_plan):
    from pathways_gke.fit import place, pools_of

    resources = xpk_plan.to_json()["resources"]
    existing = [p for p in pools_of(resources) if p.name.startswith("xpk-a-np-")]
    assert [(p.machine_type, p.max_nodes) for p in existing] == [("ct6e-standard-4t", 4)] * 4
    assert not [s for s in place(resources) if "train" in s.owner]
    # a second workload on the same four slices waits its turn: the fit counts XPK's slices as the only ones
    config = xpk_stack(workloads=[workload("train", "np"), workload("eval", "np")])
    waits = [s for s in place(run(program, stack="xpk", config=config).to_json()["resources"]) if s.queued]
    assert waits and all("xpk-a-np-" in pool for s in waits for pool in s.pools)


def test_an_adopted_clusters_kueue_flavor_lists_its_groups_taint_and_tolerates_it():
    from pathways_gke.addons.kueue import kueue_objects

    config = xpk_stack({"name": "extra", "type": "v6e-16", "slices": 1, "zone": "us-east5-b"},
                       kueue={"enabled": True})
    flavor = dict(kueue_objects(parse_stack(config)))["flavor-tpu-extra"]["spec"]
    assert flavor["nodeTaints"] == [{"key": naming.TPU_GROUP_LABEL, "value": "extra", "effect": "NoSchedule"}]
    assert {**flavor["nodeTaints"][0], "operator": "Equal"} in flavor["tolerations"]
    assert flavor["nodeLabels"][naming.TPU_GROUP_LABEL] == "extra"


@pytest.mark.slow
def test_turning_a_group_to_create_false_relinquishes_its_pools_and_back_is_refused():
    """The engine releases a managed resource the program now reads under the same URN and id (no delete); the
    other way round the provider finds the pool already there."""
    from pathways_gke.plan.diff import diff_plans

    created = xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b"},
                        {"name": "extra", "type": "v6e-16", "slices": 1, "zone": "us-east5-b"},
                        workloads=[workload("train", "np"), workload("train2", "extra")])
    read = xpk_stack({"name": "np", "create": False, "type": "v6e-16", "slices": 4, "zone": "us-east5-b"},
                     {"name": "extra", "create": False, "type": "v6e-16", "slices": 1, "zone": "us-east5-b"},
                     workloads=[workload("train", "np"), workload("train2", "extra")])
    before, after = (run(program, stack="xpk", config=c).to_json() for c in (created, read))
    pool = next(r["urn"] for r in before["resources"] if r["name"] == "xpk-a-extra-0")
    forward = {c.urn: c for c in diff_plans(before, after).changed}
    assert pool not in {r["urn"] for r in diff_plans(before, after).removed}
    assert forward[pool].verdict == "relinquish" and not forward[pool].replace and not forward[pool].refusals
    back = {c.urn: c for c in diff_plans(after, before).changed}
    assert back[pool].verdict == "refused" and back[pool].refusals[0].rule == "adopted-create-409"
