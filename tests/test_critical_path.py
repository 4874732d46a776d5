"""`plan --critical-path`: the expected `pulumi up` time, from the create order the engine follows.

The order is the plan's: dependsOn (components stand for their children), providers, parents; remote
components are one step; pools run in parallel. Durations are the estimates in DURATIONS, overridable.
"""

import json

import pytest

from pathways_gke.cli import main as cli_main
from pathways_gke.plan.critical_path import (
    DEFAULT_KEY, DURATIONS, READ_KEY, VARIANTS, DurationsError, PlanGraphError, create_graph, critical_path,
    durations_markdown, human, is_local_component, load_durations, render_text, row_key, validate_durations,
)
from pathways_gke.plan.engine import plan_config
from pathways_gke.tokens import (CONFIG_FILE as CONFIG_FILE_T, GKE_CLUSTER as CLUSTER_T, JOBSET as JOBSET_T,
                                 NODE_POOL as NODE_POOL_T, TPU_SLICE_GROUP as SLICE_GROUP_T)
from tests.conftest import ROOT, STACKS
from tests.support.stacks import shipped
from tests.support.plans import GROUP_T, ROOT_T, edited, mini_plan, named, resource

CONFIGMAP_T = "kubernetes:core/v1:ConfigMap"
SA_T = "gcp:serviceaccount/account:Account"
LWS_T = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
DEPLOYMENT_T = "kubernetes:apps/v1:Deployment"


def seconds(key: str) -> float:
    return DURATIONS[key].seconds


def by_urn(plan):
    return {r["urn"]: r for r in plan["resources"]}


def tpu_pools(plan) -> set[str]:
    """The slice pools: node pools that are children of a TpuSliceGroup."""
    index = by_urn(plan)
    return {r["urn"] for r in plan["resources"]
            if r["type"] == NODE_POOL_T and index.get(r["parent"], {}).get("type") == SLICE_GROUP_T}


def node_pools(plan) -> set[str]:
    return {r["urn"] for r in plan["resources"] if r["type"] == NODE_POOL_T}


@pytest.fixture(scope="module")
def variant_plan(variant_plan_json):
    return variant_plan_json


def real_plans(stack_plans, variant_plan):
    return [(stack, stack_plans(stack).to_json()) for stack in STACKS] + [("variant", variant_plan)]


# --- the critical path of the real stacks -----------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_every_stack_deploys_through_the_cluster_then_one_slice_pool_then_the_workload_jobset(stack, stack_plans):
    """The node SA comes first: the cluster's transient default pool runs as it."""
    plan = stack_plans(stack).to_json()
    schedule = critical_path(plan)
    types = [step.type for step in schedule.chain]
    # a JobSet, or a LeaderWorkerSet (then, in mode service, the client proxies created after it), or the serving
    # Service, which waits for exactly what its LeaderWorkerSet waits for and takes as long (a tie)
    assert types[:3] == [SA_T, CLUSTER_T, NODE_POOL_T] and types[3:] in ([JOBSET_T], [LWS_T], [LWS_T, DEPLOYMENT_T],
                                                                         ["kubernetes:core/v1:Service"])
    account, cluster, pool, jobset = schedule.chain[:4]
    assert pool.urn in tpu_pools(plan) and pool.row == f"{NODE_POOL_T}#tpu-multi-host"
    assert pool.urn in by_urn(plan)[jobset.urn]["dependsOn"], "the pool on the path is one the JobSet runs on"
    assert account.start == 0 and cluster.start == account.finish
    for before, after in zip(schedule.chain, schedule.chain[1:]):
        assert after.start == before.finish
    assert schedule.total == sum(step.duration for step in schedule.chain) == schedule.chain[-1].finish
    assert schedule.total == max(step.finish for step in schedule.steps.values())


@pytest.mark.parametrize("stack, chain", [
    ("dev", ["pw-dev-node-sa", "pw-dev-cluster", "pw-dev-main-0", "pw-dev-train-jobset"]),
    # equal slices: the first
    ("prod", ["pw-prod-node-sa", "pw-prod-cluster", "pw-prod-train-0", "pw-prod-llm-pretrain-jobset"]),
])
def test_dev_and_prod_critical_paths_and_totals(stack, chain, stack_plans):
    schedule = critical_path(stack_plans(stack).to_json())
    assert [step.name for step in schedule.chain] == chain
    assert schedule.total == (seconds(SA_T) + seconds(f"{CLUSTER_T}#regional") + seconds(f"{NODE_POOL_T}#tpu-multi-host")
                              + seconds(JOBSET_T))


def test_the_jobset_controller_path_has_slack_and_the_slice_pools_have_none(stack_plans):
    schedule = critical_path(stack_plans("prod").to_json())
    installs = [s for s in schedule.steps.values() if s.type == CONFIG_FILE_T]
    assert installs and all(s.slack > 0 for s in installs)
    assert all(s.slack == 0 for s in schedule.steps.values() if s.row == f"{NODE_POOL_T}#tpu-multi-host")


@pytest.mark.slow
def test_adding_slices_to_a_group_does_not_lengthen_the_deploy(stack_plans):
    one = stack_plans("dev").to_json()
    cfg = shipped("dev")
    cfg["pathways-gke:tpuPools"][0]["slices"] = 4
    four = plan_config(cfg, stack="dev").to_json()
    assert len(tpu_pools(four)) == 4 * len(tpu_pools(one))
    schedule = critical_path(four)
    assert schedule.total == critical_path(one).total
    assert len({(schedule.steps[p].start, schedule.steps[p].finish) for p in tpu_pools(four)}) == 1, \
        "the slices of a group are created side by side"
    assert critical_path(mini_plan(slices=8)).total == critical_path(mini_plan(slices=1)).total


# --- no edge that is not needed ---------------------------------------------------------------


@pytest.mark.slow
def test_the_jobset_controller_and_its_readiness_gate_never_wait_for_a_tpu_pool(stack_plans, variant_plan):
    for label, plan in real_plans(stack_plans, variant_plan):
        graph, pools = create_graph(plan), tpu_pools(plan)
        gates = [r for r in plan["resources"] if r["type"] in (CONFIG_FILE_T, CONFIGMAP_T)]
        assert len(gates) >= 2, label
        for gate in gates:
            assert graph.waits_for(gate["urn"]) & pools == set(), f"{label}: {gate['name']} waits for a TPU pool"
        cpu = {u for u in node_pools(plan) - pools}
        assert all(graph.waits_for(g["urn"]) & cpu for g in gates if g["type"] == CONFIG_FILE_T), \
            f"{label}: the install runs on the CPU pool, so it waits for it"
        jobsets = [r for r in plan["resources"] if r["type"] in (JOBSET_T, LWS_T)]
        assert any(graph.waits_for(j["urn"]) & pools for j in jobsets), f"{label}: the check is not vacuous"


def test_no_tpu_pool_waits_for_another_node_pool(stack_plans, variant_plan):
    for label, plan in real_plans(stack_plans, variant_plan):
        graph, pools = create_graph(plan), tpu_pools(plan)
        assert pools, label
        for pool in pools:
            waits = graph.waits_for(pool)
            assert waits & node_pools(plan) == set(), f"{label}: {by_urn(plan)[pool]['name']} waits for a pool"
            assert any(by_urn(plan)[u]["type"] == CLUSTER_T for u in waits), f"{label}: pools wait for the cluster"


# --- the engine's rules -----------------------------------------------------------------------


def test_recorded_plans_already_expand_component_dependencies(stack_plans, variant_plan):
    """The SDK replaces a dependency on a local component by its children; the plan records the result."""
    for label, plan in real_plans(stack_plans, variant_plan):
        index = by_urn(plan)
        named_components = [(r["name"], dep) for r in plan["resources"] for dep in r["dependsOn"]
                            if is_local_component(index[dep])]
        assert named_components == [], label


def test_a_dependency_on_a_component_waits_for_all_of_its_children():
    plan = mini_plan(slices=2)
    plan = edited(plan, "pw-dev-main-1", inputs__initialNodeCount=0, inputs__nodeCount=None)
    group = named(plan, "pw-dev-main")
    waiter = resource([ROOT_T, CONFIGMAP_T], "waiter", parent=named(plan, "pw-dev")["urn"],
                      depends_on=(group["urn"],))
    plan["resources"].append(waiter)
    schedule = critical_path(plan)
    slow, quick = (schedule.steps[named(plan, f"pw-dev-main-{i}")["urn"]] for i in (0, 1))
    assert (slow.row, quick.row) == (f"{NODE_POOL_T}#tpu-multi-host", f"{NODE_POOL_T}#scale-from-zero")
    assert quick.finish < slow.finish
    assert {slow.urn, quick.urn} <= create_graph(plan).waits_for(waiter["urn"])
    assert schedule.steps[waiter["urn"]].start == slow.finish


def test_a_dependency_on_nested_components_reaches_the_resources_inside():
    outer = resource([ROOT_T], "outer", custom=False)
    inner = resource([ROOT_T, GROUP_T], "inner", parent=outer["urn"], custom=False)
    pool = resource([ROOT_T, GROUP_T, NODE_POOL_T], "pool", parent=inner["urn"],
                    inputs={"nodeConfig": {"machineType": "n2-standard-8"}, "nodeCount": 1})
    waiter = resource([CONFIGMAP_T], "waiter", depends_on=(outer["urn"],))
    plan = {"stack": "t", "resources": [outer, inner, pool, waiter]}
    schedule = critical_path(plan)
    assert schedule.steps[waiter["urn"]].start == schedule.steps[pool["urn"]].finish == seconds(f"{NODE_POOL_T}#cpu")
    assert [s.name for s in schedule.chain] == ["pool", "waiter"], "components take no time and are not steps"


def test_a_remote_component_is_one_step_that_includes_its_children():
    plan = mini_plan()
    install = named(plan, "pw-dev-jobset")
    install["remote"] = True
    crd = named(plan, "jobsets.jobset.x-k8s.io")
    waiter = resource([ROOT_T, CONFIGMAP_T], "waiter", depends_on=(crd["urn"],))
    plan["resources"].append(waiter)
    graph, schedule = create_graph(plan), critical_path(plan)
    assert crd["urn"] not in schedule.steps
    assert schedule.steps[install["urn"]].duration == seconds(f"{CONFIG_FILE_T}#awaited")
    assert graph.waits_for(crd["urn"]) == graph.waits_for(install["urn"])
    assert schedule.steps[waiter["urn"]].start == schedule.steps[install["urn"]].finish


def test_a_resource_waits_for_its_provider():
    plan = mini_plan()
    schedule = critical_path(plan)
    secret, provider = named(plan, "pw-dev-hf-token"), named(plan, "pw-dev-k8s")
    assert secret["dependsOn"] == [] and secret["options"]["provider"] == provider["urn"]
    assert schedule.steps[secret["urn"]].start == schedule.steps[provider["urn"]].finish > 0


def test_children_wait_for_their_parents_urn_so_a_components_dependencies_hold_back_its_children():
    plan = mini_plan()
    cpu, group, pool = named(plan, "pw-dev-cpu"), named(plan, "pw-dev-main"), named(plan, "pw-dev-main-0")
    group["dependsOn"] = [cpu["urn"]]  # a component registers after its dependencies; children need its URN
    assert cpu["urn"] not in pool["dependsOn"]
    schedule = critical_path(plan)
    assert schedule.steps[pool["urn"]].start == schedule.steps[cpu["urn"]].finish
    custom_parent = resource([ROOT_T, CONFIGMAP_T], "parent", parent=named(plan, "pw-dev")["urn"])
    child = resource([ROOT_T, CONFIGMAP_T, CONFIGMAP_T], "child", parent=custom_parent["urn"])
    plan["resources"] += [custom_parent, child]
    steps = critical_path(plan).steps
    assert steps[child["urn"]].start == steps[custom_parent["urn"]].finish > 0, "a custom parent must exist first"


def test_an_adopted_cluster_is_read_not_created(stack_plans):
    cfg = shipped("dev")
    cfg["pathways-gke:cluster"] = {"name": "pw-dev", "location": "us-east5", "create": False}
    plan = plan_config(cfg, stack="dev").to_json()
    schedule = critical_path(plan)
    cluster = next(s for s in schedule.steps.values() if s.type == CLUSTER_T)
    assert (cluster.row, cluster.duration) == (READ_KEY, seconds(READ_KEY))
    assert CLUSTER_T not in [s.type for s in schedule.chain]
    assert schedule.total < critical_path(stack_plans("dev").to_json()).total


def test_a_cycle_is_an_error_naming_its_resources():
    plan = mini_plan()
    named(plan, "pw-dev-cluster")["dependsOn"] = [named(plan, "train")["urn"]]
    with pytest.raises(PlanGraphError, match="dependency cycle: ") as error:
        critical_path(plan)
    assert "pw-dev-cluster" in str(error.value) and "train" in str(error.value)


@pytest.mark.parametrize("where", ["dependsOn", "provider"])
def test_a_dangling_dependency_is_an_error_naming_it(where):
    plan = mini_plan()
    ghost = "urn:pulumi:dev::pathways-gke::gcp:container/nodePool:NodePool::ghost"
    train = named(plan, "train")
    if where == "dependsOn":
        train["dependsOn"].append(ghost)
    else:
        train["options"]["provider"] = ghost
    with pytest.raises(PlanGraphError, match="not in the plan") as error:
        critical_path(plan)
    assert "train" in str(error.value) and ghost in str(error.value)


# --- durations: data, one row per fact, overridable -------------------------------------------


def test_every_resource_of_the_real_stacks_has_its_own_row(stack_plans, variant_plan):
    for label, plan in real_plans(stack_plans, variant_plan):
        schedule = critical_path(plan)
        assert schedule.defaulted == [], label
        for r in plan["resources"]:
            key = row_key(r)
            assert key == "component" or key in DURATIONS, f"{label}: {r['name']} -> {key}"


def test_node_pool_rows_are_decided_by_plain_inputs(variant_plan):
    rows = {r["name"]: row_key(r) for r in variant_plan["resources"] if r["type"] == NODE_POOL_T}
    assert rows["pw-prod-cpu"] == f"{NODE_POOL_T}#cpu"
    assert rows["pw-prod-burst-0"] == f"{NODE_POOL_T}#scale-from-zero"  # queued: 0 nodes at create
    assert rows["pw-prod-train-0"] == f"{NODE_POOL_T}#tpu-multi-host"
    single = {"nodeCount": 1, "nodeConfig": {"machineType": "ct6e-standard-8t",
                                             "taints": [{"key": "google.com/tpu", "value": "present"}]}}
    flex = {"initialNodeCount": 0, "nodeConfig": {"machineType": "ct6e-standard-4t", "flexStart": True}}
    assert VARIANTS[NODE_POOL_T](single) == "tpu-single-host"
    assert VARIANTS[NODE_POOL_T](flex) == "scale-from-zero"
    assert VARIANTS[CLUSTER_T]({"location": "us-east5-b"}) == "zonal"
    assert VARIANTS[CLUSTER_T]({"location": "us-east5"}) == "regional"
    assert VARIANTS[CONFIG_FILE_T]({"skipAwait": True}) == "skip-await"


def test_every_row_has_a_reason_and_every_variant_a_row():
    assert all(row.why and row.seconds >= 0 for row in DURATIONS.values())
    for type_ in VARIANTS:
        assert any(key.startswith(type_ + "#") for key in DURATIONS), type_
    assert DEFAULT_KEY in DURATIONS and READ_KEY in DURATIONS


def test_an_unknown_type_takes_the_default_and_is_reported():
    plan = mini_plan()
    plan["resources"].append(resource(["acme:index:Thing"], "thing", depends_on=(named(plan, "train")["urn"],)))
    schedule = critical_path(plan)
    assert schedule.defaulted == ["acme:index:Thing"]
    assert schedule.chain[-1].name == "thing" and schedule.chain[-1].duration == seconds(DEFAULT_KEY)
    assert critical_path(plan, {"acme:index:Thing": 0}).defaulted == []


def test_a_durations_override_changes_the_total(tmp_path, stack_plans):
    plan = stack_plans("prod").to_json()
    base = critical_path(plan)
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({f"{NODE_POOL_T}#tpu-multi-host": 1800}))
    slower = critical_path(plan, load_durations(path))
    assert slower.total == base.total - seconds(f"{NODE_POOL_T}#tpu-multi-host") + 1800
    assert [s.name for s in slower.chain] == [s.name for s in base.chain]


def test_a_bare_type_overrides_all_its_variants_and_fast_slices_put_the_controllers_on_the_path(
        tmp_path, stack_plans):
    plan = stack_plans("prod").to_json()
    path = tmp_path / "durations.yaml"
    path.write_text(f"{NODE_POOL_T}: 60\n")
    schedule = critical_path(plan, load_durations(path))
    assert {s.duration for s in schedule.steps.values() if s.type == NODE_POOL_T} == {60}
    types = [s.type for s in schedule.chain]
    assert types[:4] == [SA_T, CLUSTER_T, NODE_POOL_T, CONFIG_FILE_T] and types[-1] == JOBSET_T
    assert schedule.chain[2].row == f"{NODE_POOL_T}#cpu", "then the CPU pool, where the controllers run, decides"


@pytest.mark.parametrize("data, fragment", [
    ({f"{NODE_POOL_T}#tpu-multi-host": "ten"}, f"'{NODE_POOL_T}#tpu-multi-host': 'ten' is not a duration"),
    ({CLUSTER_T: -5}, f"'{CLUSTER_T}': -5 is not a duration"),
    ({CLUSTER_T: True}, f"'{CLUSTER_T}': True is not a duration"),
    ({f"{NODE_POOL_T}#gpu": 60}, f"'{NODE_POOL_T}#gpu': unknown variant; allowed: {NODE_POOL_T}#cpu"),
    ({"Cluster": 60}, "'Cluster': not a resource type"),
    ([60], "expected a mapping of resource type -> seconds"),
])
def test_bad_durations_are_refused_naming_the_key_and_value(data, fragment):
    with pytest.raises(DurationsError) as error:
        validate_durations(data, "d.json")
    assert fragment in str(error.value)


def test_all_bad_durations_are_reported_at_once():
    with pytest.raises(DurationsError) as error:
        validate_durations({CLUSTER_T: "x", "nope": 1, JOBSET_T: 3}, "d.yaml")
    assert len(error.value.problems) == 2


# --- the CLI ----------------------------------------------------------------------------------


def plan_args(stack: str, *extra: str) -> list[str]:
    return ["plan", "--stack", stack, "--project-dir", str(ROOT), *extra]


@pytest.mark.slow
def test_cli_critical_path_prints_the_total_and_the_chain(capsys, stack_plans):
    assert cli_main(plan_args("dev", "--critical-path")) == 0
    out = capsys.readouterr().out
    schedule = critical_path(stack_plans("dev").to_json())
    assert f"stack dev: {human(schedule.total)}" in out
    positions = [out.index(f"  {step.type}  ") for step in schedule.chain]
    assert positions == sorted(positions), "the chain is printed in create order"
    for step in schedule.chain:
        assert step.name in out
    assert '"resources"' not in out and "pw-dev-node-sa-logging-logwriter" not in out, "not the plan itself"


@pytest.mark.slow
def test_cli_critical_path_json(capsys, stack_plans):
    assert cli_main(plan_args("prod", "--critical-path", "--json")) == 0
    document = json.loads(capsys.readouterr().out)
    assert document == json.loads(json.dumps(critical_path(stack_plans("prod").to_json()).to_json()))
    assert document["stack"] == "prod"
    assert document["totalSeconds"] == document["chain"][-1]["finish"]
    for step in document["chain"]:
        assert set(step) >= {"urn", "type", "name", "start", "duration", "finish"}
    assert {p["name"] for p in document["nodePools"]} >= {"pw-prod-cpu", "pw-prod-train-0"}


@pytest.mark.slow
def test_cli_durations_file_changes_the_total(tmp_path, capsys):
    path = tmp_path / "durations.yaml"
    path.write_text(f"{CLUSTER_T}#regional: 1000\n")
    assert cli_main(plan_args("dev", "--critical-path", "--json")) == 0
    before = json.loads(capsys.readouterr().out)["totalSeconds"]
    assert cli_main(plan_args("dev", "--critical-path", "--json", "--durations", str(path))) == 0
    after = json.loads(capsys.readouterr().out)["totalSeconds"]
    assert after == before - seconds(f"{CLUSTER_T}#regional") + 1000


def test_cli_bad_durations_file_exits_2_naming_the_key_before_anything_runs(tmp_path, capsys, recording_runs):
    path = tmp_path / "durations.json"
    path.write_text(json.dumps({f"{NODE_POOL_T}#tpu-multi-host": "twelve minutes"}))
    assert cli_main(plan_args("dev", "--critical-path", "--durations", str(path))) == 2
    err = capsys.readouterr().err
    assert f"'{NODE_POOL_T}#tpu-multi-host': 'twelve minutes' is not a duration" in err
    assert "Traceback" not in err
    assert recording_runs == [], "the program ran although the durations file is invalid"


def test_cli_durations_without_critical_path_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "durations.json"
    path.write_text("{}")
    assert cli_main(plan_args("dev", "--durations", str(path))) == 2
    assert "--durations needs --critical-path" in capsys.readouterr().err


@pytest.mark.slow
def test_plan_json_without_critical_path_is_unchanged(capsys, stack_plans):
    assert cli_main(plan_args("dev", "--json")) == 0
    assert capsys.readouterr().out == stack_plans("dev").dumps()


# --- docs -------------------------------------------------------------------------------------


def test_the_durations_table_in_the_docs_is_current():
    text = (ROOT / "docs/critical-path.md").read_text()
    begin = text.index("<!-- durations:begin")
    table = text[text.index("\n", begin) + 1:text.index("<!-- durations:end -->")]
    assert table == durations_markdown(), "copy plan.critical_path.durations_markdown() into docs/critical-path.md"


def test_the_example_in_the_docs_is_real_output(stack_plans):
    text = (ROOT / "docs/critical-path.md").read_text()
    command = "$ pathways-gke plan --stack prod --critical-path\n"
    example = text[text.index(command) + len(command):text.index("```", text.index(command))]
    real = render_text(critical_path(stack_plans("prod").to_json())).splitlines()
    for line in example.splitlines():
        assert line == "  ..." or line in real, line
